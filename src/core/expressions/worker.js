// @ts-check
// A template worker's entry (isolation.ts): it tells the waiting thread which item it starts, and
// which thread it is, over the batch's own port, so the hard stop counts only the time the templates
// run on a core. It runs below the service's thread in priority (thread-priority.js), so a runaway
// template never takes the service's core.
import { renderBatch } from './render.js'
import { kernelThreadId, yieldToServiceThread } from './thread-priority.js'

yieldToServiceThread()
const thread = kernelThreadId()

/** @param {import('./render.d.ts').Batch & { port: import('node:worker_threads').MessagePort }} task */
export default async function renderBatchInWorker(task) {
  try {
    return await renderBatch(task, (item) => task.port.postMessage({ item, thread }))
  } finally {
    task.port.close()
  }
}
