/**
 * Templates recently stopped at a limit, by owner and text (docs/security.md, "Templates"). A
 * mapping that runs away does so on every delivery: without this, each delivery started it again in
 * a worker, the worker was terminated at the hard stop and a fresh one started, and that churn (and
 * the collection of what each stopped worker left) held the service's thread for tens of
 * milliseconds a second (docs/benchmarks.md, "Hostile templates"). A template stopped once fails at
 * once for COOL_OFF_MS, saying when it was stopped, why and what to do; any change to its text is a
 * new template, tried at once. Memory is bounded: the least recently stopped are forgotten first.
 *
 * A template that failed at the size cap in a worker is held back the same way, with one difference:
 * what it builds depends on the size of what it is given (a `$pad` to the length of a card's
 * description), so it is held back only for inputs at least as large as the one it failed on; a
 * smaller event tries it again. The issue's `$replace` builds the same on every input, so it is held
 * back on every delivery; before, every delivery paid a worker's evaluation for it
 * (docs/benchmarks.md, "Hostile templates").
 */
export const COOL_OFF_MS = 10 * 60_000
const MAX_REMEMBERED = 1_000

interface Stop {
  at: number
  why: string
  /** For a failure at the size cap: the size of the input it failed on (characters of its JSON). */
  inputChars?: number
}

const stops = new Map<string, Stop>()

function keyOf(owner: string, template: string): string {
  return `${owner}\u0000${template}`
}

/** A time of day as people read it in a message: `15:41 UTC`. */
function clock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 16)} UTC`
}

/** Says that a template stopped just now is held back, and for how long (appended to its stop message). */
export function heldBackNotice(): string {
  return `it is not run again for ${COOL_OFF_MS / 60_000} minutes unless it is changed`
}

/**
 * Remembers that this owner's template was stopped now, for `why` (e.g. "running longer than 1 s, the
 * limit for a template"); `inputChars` when it failed at the size cap, on an input of that size.
 */
export function rememberStop(
  owner: string,
  template: string,
  why: string,
  { now = Date.now(), inputChars }: { now?: number; inputChars?: number } = {},
): void {
  const key = keyOf(owner, template)
  stops.delete(key)
  stops.set(key, { at: now, why, inputChars })
  if (stops.size > MAX_REMEMBERED) stops.delete(stops.keys().next().value!)
}

/**
 * Why this owner's template fails without running, while its cool-off lasts; else undefined.
 * `inputChars` measures the input it would run on, read only for a template held back at the size cap.
 */
export function heldBack(
  owner: string,
  template: string,
  inputChars: () => number,
  now = Date.now(),
): string | undefined {
  const key = keyOf(owner, template)
  const stop = stops.get(key)
  if (!stop) return undefined
  const until = stop.at + COOL_OFF_MS
  if (now >= until) {
    stops.delete(key)
    return undefined
  }
  if (stop.inputChars !== undefined && inputChars() < stop.inputChars) return undefined
  return `not run: it was stopped at ${clock(stop.at)} for ${stop.why}; fix the template (a mapping preview shows its result), or it will be tried again after ${clock(until)}`
}

/** The size of a template's input, as `heldBack` and `rememberStop` compare it: characters of its JSON. */
export function inputSize(scope: unknown): number {
  return JSON.stringify(scope)?.length ?? 0
}

/** Forgets every stop (tests). */
export function forgetStops(): void {
  stops.clear()
}
