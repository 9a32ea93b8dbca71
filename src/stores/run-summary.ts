// The run summary, its orders and cursors live in src/state/ (what the evidence layer, below the
// stores, reads as well); the stores and their callers take them from here.
export * from "../state/run-summary.js";
