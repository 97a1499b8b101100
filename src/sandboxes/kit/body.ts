import { header, type IncomingRequest } from './http.ts'

/**
 * Request bodies. The sandbox plugins keep every body as raw text (kit/plugin.ts) and each endpoint
 * parses it here, under its platform's rules, so that a bad body gets the platform's own answer.
 */
export type ParsedBody = { ok: true; value: unknown } | { ok: false; reason: string }

/** How a platform reads bodies where the Content-Type does not settle it. */
export interface BodyRules {
  /** No Content-Type: tried as JSON (what curl users usually mean), or as JSON if it starts with `{` and as a form otherwise. */
  untyped: 'json' | 'json-or-form'
  /** A type neither form nor `*json*` (text, multipart): ignored (no body), or tried as JSON. */
  otherTypes: 'ignore' | 'json'
  /** A form name given twice: the last value wins, or all values are kept as an array. */
  repeatedFormNames: 'last' | 'all'
}

/** What body parsing reads of a request. */
type BodyOf = Pick<IncomingRequest, 'headers' | 'rawBody'>

const FORM_TYPE = 'application/x-www-form-urlencoded'

export function isFormBody(req: BodyOf): boolean {
  return (header(req, 'content-type') ?? '').toLowerCase().includes(FORM_TYPE)
}

function formValues(
  raw: string,
  repeated: BodyRules['repeatedFormNames'],
): Record<string, string | string[]> {
  const params = new URLSearchParams(raw)
  if (repeated === 'last') return Object.fromEntries(params)
  const out: Record<string, string | string[]> = {}
  for (const [name, value] of params) {
    const previous = out[name]
    out[name] =
      previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value]
  }
  return out
}

function json(raw: string): ParsedBody {
  try {
    return { ok: true, value: JSON.parse(raw) as unknown }
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : 'invalid JSON' }
  }
}

/**
 * Parses a body by its Content-Type: any `*json*` type as JSON (including
 * `application/merge-patch+json`), a form as a flat object, the rest as `rules` say. An empty
 * body is `undefined`.
 */
export function parseBody(req: BodyOf, rules: BodyRules): ParsedBody {
  const raw = req.rawBody
  if (raw === undefined || raw.trim() === '') return { ok: true, value: undefined }
  const contentType = (header(req, 'content-type') ?? '').toLowerCase()
  if (contentType.includes(FORM_TYPE)) return { ok: true, value: formValues(raw, rules.repeatedFormNames) }
  if (contentType.includes('json')) return json(raw)
  if (contentType === '') {
    const parsed = json(raw)
    if (!parsed.ok && rules.untyped === 'json-or-form' && !raw.trim().startsWith('{'))
      return { ok: true, value: formValues(raw, rules.repeatedFormNames) }
    return parsed
  }
  return rules.otherTypes === 'json' ? json(raw) : { ok: true, value: undefined }
}
