/**
 * `leash/worker`: workers that resume runs from a shared store, on one machine or many: runs whose
 * approval was recorded out of process (`leash approve`), and runs a crashed worker left behind; and
 * `startNotifier`, which delivers a store's outbox as signed webhooks.
 */
export { Worker } from "./worker.js";
export { runWorker } from "./run-worker.js";
export type { RunWorkerOptions } from "./run-worker.js";
export type { WorkerOptions, WorkerLogger, WorkerNotifyOptions } from "./worker-options.js";
export { startNotifier } from "../notify/deliverer.js";
export type { Notifier, NotifierOptions, NotifierLogger } from "../notify/deliverer.js";
export { readWebhookSecretFile, webhookSecrets } from "../notify/webhook-secret.js";
export type { WebhookSecrets } from "../notify/webhook-secret.js";
export type { LeasingStore } from "./leasing-store.js";
export { isLeasingStore } from "./leasing-store.js";
