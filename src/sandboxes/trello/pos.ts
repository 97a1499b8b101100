/**
 * `pos` arguments (sources: Trello ids and positions): `top`, `bottom` or a positive number; answers carry a number.
 * Observed values (lists at 16384, 32768, 49152; checklists at 16384, 32768) suggest new
 * items get `max + 16384` and `top` roughly half the minimum [UNV heuristic, used as is].
 */
export const POS_STEP = 16384

export type PosArgument = 'top' | 'bottom'

/** Returns the numeric position, or null when the argument is not a valid `pos`. */
export function resolvePos(
  raw: unknown,
  siblings: ReadonlyArray<{ pos: number }>,
  fallback: PosArgument = 'bottom',
): number | null {
  const value = raw === undefined || raw === null || raw === '' ? fallback : raw
  if (value === 'top') {
    if (siblings.length === 0) return POS_STEP
    return Math.min(...siblings.map((s) => s.pos)) / 2
  }
  if (value === 'bottom') {
    if (siblings.length === 0) return POS_STEP
    return Math.max(...siblings.map((s) => s.pos)) + POS_STEP
  }
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value)
        ? Number(value)
        : NaN
  return Number.isFinite(number) && number > 0 ? number : null
}
