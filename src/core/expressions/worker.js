// @ts-check
// A template worker's entry (isolation.ts): it tells the waiting thread which item it starts, over
// the batch's own port, so the hard stop counts only the time the templates run.
import { renderBatch } from './render.js'

/** @param {import('./render.d.ts').Batch & { port: import('node:worker_threads').MessagePort }} task */
export default async function renderBatchInWorker(task) {
  try {
    return await renderBatch(task, (i) => task.port.postMessage(i))
  } finally {
    task.port.close()
  }
}
