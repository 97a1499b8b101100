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

/**
 * Templates on their first try in a worker, by owner and text, and those tried already (bounded like
 * the stops). Deliveries come faster than a worker starts on a busy machine: before the first try of
 * a runaway mapping had failed, the deliveries behind it had each sent it to a worker too (15 to 23
 * of the 100 in the hostile-templates line, docs/benchmarks.md). So the same owner's same template
 * waits for its first try to end, and is then held back or run as that try decided.
 */
const trying = new Map<string, Promise<void>>()
const tried = new Set<string>()

/**
 * Waits until none of these templates of this owner is on its first try, then takes the first try of
 * each not tried yet; the answer ends those tries (call it once the batch is done, however it ended).
 * It never waits while holding a try, so two values naming the same templates cannot wait on each other.
 */
export async function firstTries(owner: string, templates: string[]): Promise<() => void> {
  const keys = [...new Set(templates.map((t) => keyOf(owner, t)))]
  for (;;) {
    const pending = keys.flatMap((k) => trying.get(k) ?? [])
    if (pending.length === 0) break
    await Promise.all(pending)
  }
  const mine = keys.filter((k) => !tried.has(k))
  const ends = mine.map((k) => {
    let end!: () => void
    trying.set(k, new Promise((resolve) => (end = resolve)))
    return end
  })
  return () => {
    mine.forEach((k, i) => {
      trying.delete(k)
      tried.add(k)
      if (tried.size > MAX_REMEMBERED) tried.delete(tried.values().next().value!)
      ends[i]!()
    })
  }
}

/** The size of a template's input, as `heldBack` and `rememberStop` compare it: characters of its JSON. */
export function inputSize(scope: unknown): number {
  return JSON.stringify(scope)?.length ?? 0
}

/** Forgets every stop (tests). */
export function forgetStops(): void {
  stops.clear()
  tried.clear()
}
