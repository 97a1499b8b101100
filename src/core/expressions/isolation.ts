import { availableParallelism } from 'node:os'
import { MessageChannel } from 'node:worker_threads'
import { Piscina } from 'piscina'
import { HARD_STOP_MS, HardStop } from './hard-stop.ts'
import type { Batch, Outcome } from './render.js'
import { heldBackNotice, inputSize, rememberStop } from './stopped-templates.ts'
import { threadCpuMs } from './thread-priority.js'

/**
 * Templates that could run away are evaluated in worker threads (docs/security.md, "Templates"):
 * a JSONata call such as `$replace` on a million characters, or a backtracking regular expression,
 * never yields, so JSONata's own timeout cannot interrupt it, and on the service's thread it would
 * hold every request (even `/health`) and grow the heap without bound. A worker is stopped
 * (terminated) when a batch runs past the hard stop, and dies alone when it passes its memory limit;
 * either way the pool starts a fresh one. Piscina keeps the pool; a batch's clock starts when the
 * worker starts its first template, so time spent waiting for a busy worker is never counted, and
 * it counts the worker's time on a core (hard-stop.ts): workers run below the service's thread in
 * priority (thread-priority.js), so that a runaway template never takes the service's core.
 */
export { HARD_STOP_MS }
export const WORKER_MEMORY_MB = 128

/** How often a running batch's time is read (a read of /proc, some microseconds). */
const CHECK_EVERY_MS = 50

let pool: Piscina | undefined

/**
 * What the template workers did in this process, for /metrics (metrics-registry.ts): batches sent to
 * a worker, and templates stopped at a limit (each stop ends its worker, and the pool starts another).
 */
export const templateWorkerCounts = { batches: 0, stopped: 0 }

function poolOf(): Piscina {
  pool ??= new Piscina({
    filename: new URL('./worker.js', import.meta.url).href,
    // One kept warm (each idle worker holds about 15 MiB); two or more when busy, so one stopped
    // template does not hold every other user's behind it.
    minThreads: 1,
    maxThreads: Math.max(2, Math.min(4, availableParallelism())),
    idleTimeout: 60_000,
    resourceLimits: {
      maxOldGenerationSizeMb: WORKER_MEMORY_MB,
      maxYoungGenerationSizeMb: 16,
      stackSizeMb: 4,
    },
  })
  return pool
}

/**
 * Renders a batch in a worker; a batch stopped for time or memory fails at the item that was running,
 * and that template is remembered as stopped for its owner (stopped-templates.ts), as is one that
 * failed at the size cap, for inputs as large.
 */
export async function renderInWorker(batch: Batch, owner: string): Promise<Outcome[]> {
  templateWorkerCounts.batches++
  const { port1, port2 } = new MessageChannel()
  const stop = new AbortController()
  let running = -1
  let timer: NodeJS.Timeout | undefined
  port1.on('message', ({ item, thread }: { item: number; thread: number | undefined }) => {
    if (running < 0) {
      const hardStop = new HardStop(() => (thread === undefined ? undefined : threadCpuMs(thread)))
      timer = setInterval(() => {
        if (hardStop.due()) {
          clearInterval(timer)
          stop.abort()
        }
      }, CHECK_EVERY_MS)
    }
    running = item
  })
  try {
    const outcomes = (await poolOf().run(
      { ...batch, port: port2 },
      { transferList: [port2], signal: stop.signal },
    )) as Outcome[]
    rememberSizeCaps(batch, outcomes, owner)
    return outcomes
  } catch (err) {
    const culprit = Math.max(running, 0)
    const outOfMemory = (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
    let message = `it could not be evaluated (${(err as Error).message})`
    if (stop.signal.aborted || outOfMemory) {
      templateWorkerCounts.stopped++
      const [done, why] = stop.signal.aborted
        ? [`ran longer than ${HARD_STOP_MS / 1000} s`, `running longer than ${HARD_STOP_MS / 1000} s`]
        : [
            `needed more than ${WORKER_MEMORY_MB} MB of memory`,
            `needing more than ${WORKER_MEMORY_MB} MB of memory`,
          ]
      rememberStop(owner, batch.items[culprit].template, `${why}, the limit for a template`)
      message = `it ${done}, the limit for a template, and was stopped; ${heldBackNotice()}`
    }
    return batch.items.map((item, i) =>
      i === culprit
        ? { ok: false, message }
        : { ok: false, message: `not evaluated, because ${batch.items[culprit].field} was stopped` },
    )
  } finally {
    clearInterval(timer)
    port1.close()
  }
}

/** Each template of the batch that failed at the size cap is held back for its owner, for inputs as large. */
function rememberSizeCaps(batch: Batch, outcomes: Outcome[], owner: string): void {
  let inputChars: number | undefined
  outcomes.forEach((outcome, i) => {
    if (outcome.ok || !outcome.sizeCap) return
    inputChars ??= inputSize(batch.scope)
    const why = `building more than ${batch.maxChars.toLocaleString('en')} characters, the limit for a template, from an input this large`
    rememberStop(owner, batch.items[i].template, why, { inputChars })
  })
}

/** Ends the workers (tests and a stopping service); the next template starts a new pool. */
export async function closeTemplateWorkers(): Promise<void> {
  const closing = pool
  pool = undefined
  await closing?.destroy()
}
