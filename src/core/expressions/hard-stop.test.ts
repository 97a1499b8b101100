import { describe, expect, it } from 'vitest'
import { HARD_STOP_MS, HardStop, MAX_WAIT_MS } from './hard-stop.ts'

// Clocks are set by hand: these tests say what the hard stop counts, never how fast anything runs.
function clocks() {
  const c = { cpu: 500 as number | undefined, wall: 10_000 }
  return {
    c,
    stop: new HardStop(
      () => c.cpu,
      () => c.wall,
    ),
  }
}

describe('the hard stop of a template worker', () => {
  it('counts the worker’s time on a core, not its wait for one, so a busy machine stops no small template', () => {
    const { c, stop } = clocks()
    c.wall += MAX_WAIT_MS - 1
    c.cpu! += HARD_STOP_MS - 1
    expect(stop.due()).toBe(false)
    c.cpu! += 1
    expect(stop.due()).toBe(true)
  })

  it('stops a batch that waited past the longest wait, so a starved worker frees its place in the pool', () => {
    const { c, stop } = clocks()
    c.wall += MAX_WAIT_MS
    expect(stop.due()).toBe(true)
  })

  it('counts the wall clock where a thread’s time on a core is not known', () => {
    const c = { wall: 0 }
    const stop = new HardStop(
      () => undefined,
      () => c.wall,
    )
    c.wall = HARD_STOP_MS - 1
    expect(stop.due()).toBe(false)
    c.wall = HARD_STOP_MS
    expect(stop.due()).toBe(true)
  })
})
