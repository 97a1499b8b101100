import { z } from 'zod'
import { header, type RateLimitFacts } from '../limits/rate-limit-headers.ts'

export const RateLimitStatus = z.object({
  limit: z.number().nullable(),
  remaining: z.number().nullable(),
  reset_at: z.string().nullable().describe('When the window resets (ISO 8601)'),
})

/** The rate-limit state a response's headers report, in the platform's own header names. */
export function rateLimitStatus(
  facts: RateLimitFacts,
  headers: Record<string, string>,
): z.infer<typeof RateLimitStatus> | null {
  const number = (name?: string) => {
    const value = name ? Number(header(headers, name)) : Number.NaN
    return Number.isFinite(value) ? value : null
  }
  const limit = number(facts.limitHeader)
  const remaining = number(facts.remainingHeader)
  const reset = number(facts.resetHeader)
  if (limit === null && remaining === null && reset === null) return null
  const resetMs =
    reset === null
      ? null
      : facts.resetUnit === 'epoch-seconds'
        ? reset * 1000
        : facts.resetUnit === 'epoch-ms'
          ? reset
          : Date.now() + reset * 1000
  return { limit, remaining, reset_at: resetMs === null ? null : new Date(resetMs).toISOString() }
}
