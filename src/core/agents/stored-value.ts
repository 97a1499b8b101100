/**
 * What a step stores of its input and output is capped (SWITCHYARD_STEP_STORE_MAX_BYTES): a step that
 * sends a 10 MB base64 attachment would otherwise keep it in the run's timeline for as long as the
 * run is kept, and every reader of the run would carry it. The run itself works on the whole value
 * in memory; only the stored copy is cut, and it says so where it was cut, so a person reading the
 * run knows that what they see is not all that was sent.
 *
 * Long strings go first (an attachment is one long string in an otherwise small object): each keeps
 * its first STRING_KEPT characters followed by CUT_MARK and the length it had. If the value is still
 * too large (a listing of thousands of small items), it is stored as `{ [CUT_KEY]: …, start: … }`
 * holding the start of its JSON text.
 */
export const CUT_MARK = '… [cut by Switchyard: '
export const CUT_KEY = 'switchyard_cut'
const STRING_KEPT = 1024

/** What was cut from one stored value: its size in bytes as JSON, and what was kept of it. */
export interface CutNote {
  bytes: number
  kept_bytes: number
}

export function capStored(value: unknown, maxBytes: number): { value: unknown; cut: CutNote | null } {
  if (value === undefined || value === null) return { value, cut: null }
  const text = JSON.stringify(value)
  const bytes = Buffer.byteLength(text)
  if (bytes <= maxBytes) return { value, cut: null }
  const shortened = cutStrings(value)
  const shortText = JSON.stringify(shortened)
  const shortBytes = Buffer.byteLength(shortText)
  if (shortBytes <= maxBytes) return { value: shortened, cut: { bytes, kept_bytes: shortBytes } }
  // Characters, not bytes, below: a fraction of the cap leaves room for multi-byte characters.
  const start = text.slice(0, Math.floor(maxBytes / 4))
  const whole = { [CUT_KEY]: `the value was ${bytes} bytes of JSON; its start is kept`, start }
  return { value: whole, cut: { bytes, kept_bytes: Buffer.byteLength(JSON.stringify(whole)) } }
}

function cutStrings(value: unknown): unknown {
  if (typeof value === 'string')
    return value.length > STRING_KEPT * 2
      ? `${value.slice(0, STRING_KEPT)}${CUT_MARK}${value.length} characters, the first ${STRING_KEPT} kept]`
      : value
  if (Array.isArray(value)) return value.map(cutStrings)
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutStrings(v)]))
  return value
}

/** Whether a stored value was cut: it carries the marker capStored leaves. */
export function wasCut(stored: unknown): boolean {
  if (stored === undefined || stored === null) return false
  if (typeof stored === 'object' && !Array.isArray(stored) && CUT_KEY in stored) return true
  return JSON.stringify(stored).includes(CUT_MARK)
}

/** Which of a stored step's values were cut, for readers of the timeline (REST, CLI, web). */
export function cutParts(input: unknown, output: unknown): Array<'input' | 'output'> {
  return [...(wasCut(input) ? (['input'] as const) : []), ...(wasCut(output) ? (['output'] as const) : [])]
}
