import { header, isRecord, type IncomingRequest, type SandboxResponse } from '../kit/http.ts'

// Shared by every sandbox; re-exported so handlers import one module.
export { jsonResponse, textResponse, htmlResponse, emptyResponse, redirectResponse, isRecord, escapeHtml, header } from '../kit/http.ts'
export type { IncomingRequest, SandboxResponse } from '../kit/http.ts'

/** Trello's plain-text bodies were captured as `text/plain; charset=utf-8` (nathonius/obsidian-trello#21, Manatee.Trello#24). */
export const TEXT_PLAIN = 'text/plain; charset=utf-8'

export function formResponse(status: number, values: Record<string, string>, headers: Record<string, string> = {}): SandboxResponse {
  return {
    status,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(values).toString(),
  }
}

export function isFormBody(req: IncomingRequest): boolean {
  return (header(req, 'content-type') ?? '').toLowerCase().includes('application/x-www-form-urlencoded')
}

export type ParsedBody = { ok: true; value: Record<string, unknown> } | { ok: false; reason: string }

/**
 * Parses a body into a flat record: form-encoded (what most Trello clients send), JSON (an
 * object), or nothing. A body without a Content-Type is tried as JSON, then as a form.
 * Other types (multipart uploads, text) are ignored rather than refused.
 */
export function parseBody(req: IncomingRequest): ParsedBody {
  const raw = req.rawBody
  if (raw === undefined || raw.trim() === '') return { ok: true, value: {} }
  const contentType = (header(req, 'content-type') ?? '').toLowerCase()
  if (contentType.includes('application/x-www-form-urlencoded')) return { ok: true, value: Object.fromEntries(new URLSearchParams(raw)) }
  if (contentType === '' || contentType.includes('json')) {
    try {
      const value = JSON.parse(raw) as unknown
      if (!isRecord(value)) return { ok: false, reason: 'body must be a JSON object' }
      return { ok: true, value }
    } catch (error) {
      if (contentType === '' && !raw.trim().startsWith('{')) return { ok: true, value: Object.fromEntries(new URLSearchParams(raw)) }
      return { ok: false, reason: error instanceof Error ? error.message : 'invalid JSON' }
    }
  }
  return { ok: true, value: {} }
}

export function cookieValue(req: IncomingRequest, name: string): string | undefined {
  for (const part of (header(req, 'cookie') ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=')
    if (key === name) {
      try {
        return decodeURIComponent(rest.join('='))
      } catch {
        return undefined
      }
    }
  }
  return undefined
}
