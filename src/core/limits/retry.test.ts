import { describe, expect, it } from 'vitest'
import { CLOCK_SKEW_MARGIN_MS, pauseAfter } from './rate-limit-headers.ts'
import { shouldRetry } from './retry.ts'

describe('retry policy', () => {
  it.each([
    ['GET', { kind: 'lost' }, true],
    ['POST', { kind: 'lost' }, false],
    ['PATCH', { kind: 'lost' }, false],
    ['POST', { kind: 'rate_limited' }, true],
    ['POST', { kind: 'not_sent' }, true],
    ['POST', { kind: 'server_error', status: 503 }, false],
    ['PUT', { kind: 'server_error', status: 503 }, true],
    ['GET', { kind: 'server_error', status: 501 }, false],
  ] as const)('%s after %o: retry=%s', (method, outcome, expected) => {
    expect(shouldRetry(method, outcome)).toBe(expected)
  })
})

describe('pauses read from response headers', () => {
  const facts = {
    remainingHeader: 'x-rate-limit-remaining',
    resetHeader: 'ratelimit-reset',
    resetUnit: 'delta-seconds' as const,
    defaultRetryAfterSeconds: 60,
  }

  it('honours Retry-After on a 429', () => {
    expect(pauseAfter(facts, 429, { 'retry-after': '7' })).toBe(7000)
  })

  it('falls back to the reset header, then to the platform default, on a 429', () => {
    expect(pauseAfter(facts, 429, { 'ratelimit-reset': '3' })).toBe(3000)
    expect(pauseAfter(facts, 429, {})).toBe(60_000)
  })

  it('holds back when nothing remains, until the reset; not while requests remain', () => {
    expect(pauseAfter(facts, 200, { 'x-rate-limit-remaining': '0', 'ratelimit-reset': '3' })).toBe(3000)
    expect(pauseAfter(facts, 200, { 'x-rate-limit-remaining': '5', 'ratelimit-reset': '3' })).toBe(0)
  })

  it('reads epoch-second resets (Vercel) against the current time', () => {
    const vercel = {
      remainingHeader: 'x-ratelimit-remaining',
      resetHeader: 'x-ratelimit-reset',
      resetUnit: 'epoch-seconds' as const,
      defaultRetryAfterSeconds: 60,
    }
    // A moment on the platform's clock: waited out with a margin for the difference between clocks.
    expect(
      pauseAfter(vercel, 200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1010' }, 1_000_000),
    ).toBe(10_000 + CLOCK_SKEW_MARGIN_MS)
  })
})
