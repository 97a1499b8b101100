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
table{border-collapse:collapse;width:100%}td,th{padding:.3rem .5rem;text-align:left;vertical-align:top;border-bottom:1px solid #e0e0e0}
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
   * The posted form's fields (`origin`: the sandbox's own, as the request addressed it), or the refusal: a body that is not a form (400), or a form without
   * the page's secret or from another origin (403).
   */
  read(
    req: Pick<IncomingRequest, 'headers' | 'rawBody'>,
    origin: string,
  ): { ok: true; fields: Record<string, string> } | { ok: false; response: SandboxResponse } {
    const from = header(req, 'origin')
    if (from !== undefined && from !== 'null' && from !== origin)
      return { ok: false, response: problemPage(403, 'Refused', 'This form was posted from another site.') }
    if (!isFormBody(req))
      return {
        ok: false,
        response: problemPage(400, 'Bad request', 'Send the form as application/x-www-form-urlencoded.'),
      }
    const fields = Object.fromEntries(new URLSearchParams(req.rawBody ?? ''))
    if (fields.form_token !== this.token)
      return {
        ok: false,
        response: problemPage(
          403,
          'Refused',
          'The form is out of date or came from elsewhere: reload the page and try again.',
        ),
      }
    return { ok: true, fields }
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

/** A refused form: the status, and the reason in words, on a page linking back. */
export function problemPage(status: number, title: string, reason: string, back?: string): SandboxResponse {
  return htmlResponse(
    status,
    homeLayout(
      `${title} · sandbox`,
      `<h1>${escapeHtml(title)}</h1>
<p class="error" id="error" role="alert">${escapeHtml(reason)}</p>
${back ? `<p><a href="${escapeHtml(back)}">Back</a></p>` : ''}`,
    ),
  )
}

/** A required text field, trimmed; undefined when missing or blank. */
export function required(fields: Record<string, string>, name: string): string | undefined {
  const value = fields[name]?.trim()
  return value ? value : undefined
}
