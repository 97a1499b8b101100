// @ts-check
import { readFileSync, readlinkSync } from 'node:fs'
import { getPriority, setPriority } from 'node:os'
import process from 'node:process'

/*
 * A template worker yields the processor to the service's own thread (docs/security.md, "Templates").
 * A hostile template (a `$replace` building a hundred million characters, a backtracking regular
 * expression) keeps its worker busy up to the hard stop, and a busy pool has two workers: on a
 * machine of two cores they took both, and the service's thread, which answers every request and
 * runs the embedded store, waited for a core behind them, tens of milliseconds at a time
 * (docs/benchmarks.md, "Hostile templates"). At the lowest priority (nice 19) a worker still gets
 * every core nobody else wants, so templates are no slower on an idle machine; on a busy one the
 * hard stop counts a worker's time on a core, not its wait for one (isolation.ts).
 */
export const TEMPLATE_THREAD_NICE = 19

/**
 * The calling thread's id as the kernel knows it (Linux: "/proc/thread-self" links to
 * "<pid>/task/<tid>"), or undefined elsewhere.
 * @returns {number | undefined}
 */
export function kernelThreadId() {
  try {
    const id = Number(readlinkSync('/proc/thread-self').split('/').pop())
    return Number.isInteger(id) && id > 0 ? id : undefined
  } catch {
    return undefined
  }
}

/**
 * Lowers the priority of the calling worker thread only (Linux schedules threads on their own:
 * setpriority on a thread id touches that thread alone). Returns the thread's nice value afterwards,
 * or undefined where a thread cannot be lowered alone (not Linux, or the service's own thread).
 * @returns {number | undefined}
 */
export function yieldToServiceThread() {
  const id = kernelThreadId()
  if (id === undefined || id === process.pid) return undefined
  try {
    setPriority(id, TEMPLATE_THREAD_NICE)
  } catch {
    // Lowering one's own priority is allowed to every user; should a sandbox refuse it, run as before.
  }
  return getPriority(id)
}

/**
 * Milliseconds a thread of this process has spent on a core (Linux's schedstat), or undefined where
 * that is not known.
 * @param {number} threadId
 * @returns {number | undefined}
 */
export function threadCpuMs(threadId) {
  try {
    const onCpuNs = Number(readFileSync(`/proc/self/task/${threadId}/schedstat`, 'utf8').split(' ')[0])
    return Number.isFinite(onCpuNs) ? onCpuNs / 1e6 : undefined
  } catch {
    return undefined
  }
}
