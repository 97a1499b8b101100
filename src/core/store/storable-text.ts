/**
 * Text PostgreSQL cannot hold: the NUL character, refused in text and JSON, and a lone UTF-16
 * surrogate (half of a pair, such as \ud800), which JSON.stringify writes as an escape that jsonb
 * refuses ("Unicode low surrogate must follow a high surrogate"). A JavaScript string can hold
 * either; neither is a character, so neither means anything a person typed.
 */
// eslint-disable-next-line no-control-regex -- NUL is what this looks for
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g')

/** Each NUL and lone surrogate in `value` written as its \uXXXX escape, so it can be shown as plain text. */
export function escapeUnstorable(value: string): string {
  return value.replace(UNSTORABLE_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** `\u0000` or a surrogate's escape in JSON text: only then can parsing it yield unstorable text. */
export const UNSTORABLE_ESCAPE_IN_JSON = /\\u(?:0000|d[89a-f][0-9a-f]{2})/i

export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value)
}

/** The text with each NUL and lone surrogate turned into U+FFFD, as a UTF-8 decoder does with bad bytes. */
export function storableText(value: string): string {
  return value.replace(UNSTORABLE_ALL, '\ufffd')
}

/**
 * A parsed JSON value with every string (names too) made storable: for data from elsewhere (a
 * platform's answer) that the engine keeps, where refusing it would fail a step that did its work.
 * Walks without recursion, since an answer can nest deeper than the call stack.
 */
export function withStorableText(root: unknown): unknown {
  const fix = (value: unknown): unknown => (typeof value === 'string' ? storableText(value) : value)
  const out = { value: fix(root) }
  const pending: Array<unknown> = [out.value]
  while (pending.length) {
    const value = pending.pop()
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        value[i] = fix(value[i])
        pending.push(value[i])
      }
    } else if (typeof value === 'object' && value !== null) {
      const record = value as Record<string, unknown>
      for (const key of Object.keys(record)) {
        const item = fix(record[key])
        const name = storableText(key)
        if (name !== key) delete record[key]
        record[name] = item
        pending.push(item)
      }
    }
  }
  return out.value
}
