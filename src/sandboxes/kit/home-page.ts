import { STATUS_CODES } from 'node:http'
import { randomBase64Url } from './ids.ts'
import { escapeHtml, header, htmlResponse, type IncomingRequest, type SandboxResponse } from './http.ts'
import { isFormBody } from './body.ts'

/**
 * What every sandbox's home page (`GET {prefix}`, docs/sandbox.md "Home pages") shares: one plain,
 * responsive look that fits a 390 px phone without sideways scrolling, the guard on their forms,
 * the 303 back to the page with a short confirmation, and the error page a refused form gets.
 *
 * The forms are guarded the way the sign-in pages are: a secret only the page hands out travels in
 * a hidden input, so another site cannot post a form that works (it cannot read the page: sandbox
 * pages send no CORS headers). A browser's `Origin`, when sent, must also be the sandbox's own.
 */

/** Shared CSS: tables and long words wrap instead of widening the page. */
export const HOME_STYLE = `<style>
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;max-width:60rem;margin:1.5rem auto;padding:0 1rem;line-height:1.4;overflow-wrap:anywhere}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem}h3{font-size:1rem}
nav a{margin-right:1rem}
.done{background:#e3fcef;border:1px solid #57d9a3;border-radius:4px;padding:.5rem 1rem}
.error{color:#c9372c}
.table-wrap{max-width:100%;overflow-x:auto}
/* Cells keep their words whole (a table wider than a phone scrolls inside its box); ids break anywhere. */
table{border-collapse:collapse;width:100%}td,th{padding:.3rem .5rem;text-align:left;vertical-align:top;border-bottom:1px solid #e0e0e0;overflow-wrap:normal}
.forms{display:grid;grid-template-columns:repeat(auto-fit,minmax(16rem,1fr));gap:1rem}
form.change{border:1px solid #dcdfe4;border-radius:6px;padding:.5rem 1rem 1rem}
form.change h3{margin:.5rem 0}
label{display:block;margin:.5rem 0}
input[type=text],input[type=email],input[type=url],select,textarea{display:block;width:100%;max-width:100%;padding:.35rem;font:inherit}
button{padding:.4rem 1rem;font:inherit}
code{background:#f4f5f7;padding:.1rem .3rem;word-break:break-all}
ul.records{padding-left:1.2rem}
</style>`

/** A whole sandbox page: `title` names it, `body` is already-escaped HTML. */
export function homeLayout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
${HOME_STYLE}</head>
<body>
${body}
</body>
</html>
`
}

/** `<option>`s with `selected` on the chosen value; labels and values are escaped. */
export function options(items: Array<{ value: string; label: string }>, selected?: string): string {
  return items
    .map(
      (i) =>
        `<option value="${escapeHtml(i.value)}"${i.value === selected ? ' selected' : ''}>${escapeHtml(i.label)}</option>`,
    )
    .join('\n')
}

/** How many confirmations are kept for the page to show after its redirect. */
const FLASH_LIMIT = 100

/**
 * One sandbox's home-page state: the form secret, and the confirmations waiting to be shown
 * after a form's 303 (kept here, by a random id, so a crafted link cannot make the page say
 * something that did not happen).
 */
export class HomeForms {
  readonly token = randomBase64Url(24)
  private readonly flashes = new Map<string, string>()

  /** The hidden input every form of the page carries. */
  hidden(): string {
    return `<input type="hidden" name="form_token" value="${escapeHtml(this.token)}">`
  }

  /**
   * The posted form's fields and `refuse`, which answers the page refusing it and leading back to
   * `page`; or the refusal already: a body that is not a form (400), or a form without the page's
   * secret or from another origin than `page.url`'s (403).
   */
  read(
    req: Pick<IncomingRequest, 'headers' | 'rawBody'>,
    page: RefusalBack,
  ):
    | {
        ok: true
        fields: Record<string, string>
        refuse: (status: number, reason: string) => SandboxResponse
      }
    | { ok: false; response: SandboxResponse } {
    const refuse = (status: number, reason: string) => problemPage(status, page.title, reason, page.url)
    const refused = (status: number, reason: string) => ({
      ok: false as const,
      response: refuse(status, reason),
    })
    const from = header(req, 'origin')
    if (from !== undefined && from !== 'null' && from !== new URL(page.url).origin)
      return refused(403, 'This form was posted from another site, so it was not accepted.')
    if (!isFormBody(req))
      return refused(400, 'The form was not sent as a web form (application/x-www-form-urlencoded).')
    const fields = Object.fromEntries(new URLSearchParams(req.rawBody ?? ''))
    if (fields.form_token !== this.token)
      return refused(
        403,
        'The form is out of date or came from elsewhere: go back, reload the page and try again.',
      )
    return { ok: true, fields, refuse }
  }

  /** The 303 back to the page after a change, with `message` shown once there. */
  done(pageUrl: string, message: string): SandboxResponse {
    const id = randomBase64Url(9)
    this.flashes.set(id, message)
    while (this.flashes.size > FLASH_LIMIT) this.flashes.delete(this.flashes.keys().next().value as string)
    return { status: 303, headers: { location: `${pageUrl}?done=${id}` } }
  }

  /** The confirmation a redirect named (`?done=`), as an escaped banner; empty when there is none. */
  banner(query: URLSearchParams): string {
    const id = query.get('done')
    const message = id ? this.flashes.get(id) : undefined
    return message ? `<p class="done" id="done" role="status">${escapeHtml(message)}</p>\n` : ''
  }
}

/** The page a refused form links back to: its address and its name (e.g. "Vercel sandbox"). */
export interface RefusalBack {
  url: string
  title: string
}

/**
 * A refused form: a page saying that nothing was changed and why, in words, with the way back to the
 * page the form was on. `reason` is plain text (escaped here), never a platform's JSON: an API's
 * refusal goes through `refusalInWords` first.
 */
export function problemPage(status: number, title: string, reason: string, back: string): SandboxResponse {
  return htmlResponse(
    status,
    homeLayout(
      `Not done · ${title}`,
      `<nav><a href="${escapeHtml(back)}">← ${escapeHtml(title)}</a></nav>
<h1>Nothing was changed</h1>
<p class="error" id="error" role="alert">${escapeHtml(reason)}</p>
<p><a href="${escapeHtml(back)}" id="back">Back to the ${escapeHtml(title)}</a> to try again.</p>`,
    ),
  )
}

/**
 * A platform API's refusal of a form's change, in words: "Vercel refused it (403 Forbidden): Not
 * authorized." The words are the ones the answer carries for people (Vercel's error.message,
 * Zendesk's description and its details' descriptions, Trello's message or plain-text body); its
 * JSON, field names and codes are never shown as they are.
 */
export function refusalInWords(
  platform: string,
  answer: Pick<SandboxResponse, 'status' | 'payload'>,
): string {
  const status = `${answer.status} ${STATUS_CODES[answer.status] ?? ''}`.trim()
  const words = [...new Set(wordsOf(answer.payload ?? ''))].map(sentence)
  return `${platform} refused it (${status})${words.length ? `: ${words.join(' ')}` : '.'}`
}

const MAX_REASON = 300
const PEOPLE_KEYS = ['message', 'description', 'detail', 'title'] as const

/** The sentences an error body carries for people, outermost first; a plain-text body is one. */
function wordsOf(payload: string): string[] {
  const text = payload.trim()
  if (!text) return []
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return /^[<{[]/.test(text) ? [] : [text.slice(0, MAX_REASON)]
  }
  const found: string[] = []
  const codes: string[] = []
  const visit = (value: unknown, depth: number) => {
    if (depth > 4 || found.length >= 5) return
    if (Array.isArray(value)) return value.forEach((v) => visit(v, depth + 1))
    if (typeof value === 'string') return void found.push(value.slice(0, MAX_REASON))
    if (!value || typeof value !== 'object') return
    const record = value as Record<string, unknown>
    for (const key of PEOPLE_KEYS)
      if (typeof record[key] === 'string' && record[key])
        found.push((record[key] as string).slice(0, MAX_REASON))
    if (typeof record.error === 'string') codes.push(record.error)
    for (const v of Object.values(record)) if (typeof v === 'object' && v !== null) visit(v, depth + 1)
  }
  visit(body, 0)
  // A bare code ("RecordInvalid", "invalid_token") only when nothing says more, spaced into words;
  // an `error` that is already words is kept as it is.
  return found.length ? found : codes.map((c) => (/\s/.test(c.trim()) ? c : codeInWords(c)))
}

const codeInWords = (code: string) =>
  code
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()

const sentence = (s: string) => {
  const t = s.trim()
  return /[.!?]$/.test(t) ? t : `${t}.`
}

/** A required text field, trimmed; undefined when missing or blank. */
export function required(fields: Record<string, string>, name: string): string | undefined {
  const value = fields[name]?.trim()
  return value ? value : undefined
}
