import fs from 'node:fs'
import { getPriority } from 'node:os'
import { afterAll, describe, expect, it } from 'vitest'
import { closeTemplateWorkers, renderInWorker } from './isolation.ts'
import { kernelThreadId, TEMPLATE_THREAD_NICE, threadCpuMs } from './thread-priority.js'

afterAll(() => closeTemplateWorkers())

/** The nice value of each thread of this process (field 19 of /proc/self/task/<tid>/stat). */
function niceOfThreads(): Map<number, number> {
  const nice = new Map<number, number>()
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
      nice.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]))
    } catch {
      // the thread ended meanwhile
    }
  }
  return nice
}

// Issue 22 §9: on two cores a busy pool of two template workers took both, and the service's thread
// waited behind them for a core; workers now run at the lowest priority, the service's thread as before.
describe.runIf(process.platform === 'linux')('template workers yield the processor', () => {
  it('a template worker runs at the lowest priority, and the thread that sent it the template does not', async () => {
    const outcomes = await renderInWorker(
      { items: [{ template: '{{ $uppercase("x") }}', field: 'f' }], scope: {}, maxChars: 100 },
      'usr_priority',
    )
    expect(outcomes).toEqual([{ ok: true, value: 'X' }])
    const nice = niceOfThreads()
    const here = kernelThreadId()!
    expect(getPriority(here)).toBeLessThan(TEMPLATE_THREAD_NICE)
    expect(nice.get(here)).toBeLessThan(TEMPLATE_THREAD_NICE)
    expect([...nice].filter(([tid, n]) => tid !== here && n === TEMPLATE_THREAD_NICE).length).toBeGreaterThan(
      0,
    )
  })

  it('reads a thread’s time on a core, which the hard stop counts', () => {
    expect(threadCpuMs(kernelThreadId()!)).toBeGreaterThan(0)
    expect(threadCpuMs(2 ** 30)).toBeUndefined()
  })
})
