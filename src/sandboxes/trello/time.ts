export const MS_PER_SECOND = 1000
export const MS_PER_MINUTE = 60 * MS_PER_SECOND
export const MS_PER_HOUR = 60 * MS_PER_MINUTE
export const MS_PER_DAY = 24 * MS_PER_HOUR

/** Trello dates are ISO 8601 with milliseconds and a `Z` suffix: `2023-01-30T08:56:42.278Z` (sources: Trello objects). */
export function iso(ms: number): string {
  return new Date(ms).toISOString()
}

export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : iso(ms)
}
