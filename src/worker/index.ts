/**
 * `leash/worker`: workers that resume runs from a shared store, on one machine or many: runs whose
 * approval was recorded out of process (`leash approve`), and runs a crashed worker left behind.
 */
export { Worker } from "./worker.js";
export { runWorker } from "./run-worker.js";
export type { RunWorkerOptions } from "./run-worker.js";
export type { WorkerOptions, WorkerLogger } from "./worker-options.js";
export type { LeasingStore } from "./leasing-store.js";
export { isLeasingStore } from "./leasing-store.js";
