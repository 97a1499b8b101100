/**
 * A minimal browser for driving OAuth over plain HTTP in tests: a cookie jar per origin, manual
 * redirects, and HTML form parsing. It does what a person's browser does, one request at a time.
 */
export class BrowserLike {
  private readonly jar = new Map<string, Map<string, string>>()
  readonly visited: string[] = []

  async get(url: string): Promise<Response> {
    return this.request(url, { method: 'GET' })
  }

  async post(url: string, form: Record<string, string>): Promise<Response> {
    return this.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(url).origin },
      body: new URLSearchParams(form).toString(),
    })
  }

  /** Follows redirects until a non-redirect answer, recording every address visited. */
  async follow(first: Response, base: string): Promise<{ response: Response; url: string }> {
    let response = first
    let url = base
    for (let hops = 0; hops < 10 && response.status >= 300 && response.status < 400; hops++) {
      url = new URL(response.headers.get('location')!, url).toString()
      response = await this.get(url)
    }
    return { response, url }
  }

  async request(url: string, init: RequestInit): Promise<Response> {
    this.visited.push(url)
    const origin = new URL(url).origin
    const cookies = this.jar.get(origin)
    const headers = new Headers(init.headers)
    if (cookies?.size) headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '))
    const response = await fetch(url, { ...init, headers, redirect: 'manual' })
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';')
      const eq = pair.indexOf('=')
      const name = pair.slice(0, eq).trim()
      const value = pair.slice(eq + 1).trim()
      const jar = this.jar.get(origin) ?? new Map<string, string>()
      const expired = attrs.some((a) => /max-age=0/i.test(a) || /expires=Thu, 01 Jan 1970/i.test(a))
      if (expired || value === '') jar.delete(name)
      else jar.set(name, value)
      this.jar.set(origin, jar)
    }
    return response
  }
}

export interface ParsedForm {
  action: string
  fields: Record<string, string>
}

/** The first form in a page, with its hidden and pre-filled inputs. */
export function parseForm(html: string, pageUrl: string): ParsedForm {
  const form = /<form[^>]*>([\s\S]*?)<\/form>/i.exec(html)
  if (!form) throw new Error(`no form on ${pageUrl}:\n${html.slice(0, 500)}`)
  const action = /action="([^"]*)"/i.exec(form[0])?.[1] ?? pageUrl
  const fields: Record<string, string> = {}
  for (const input of form[1].matchAll(/<input[^>]*>/gi)) {
    const name = /name="([^"]*)"/i.exec(input[0])?.[1]
    const value = /value="([^"]*)"/i.exec(input[0])?.[1] ?? ''
    if (name) fields[name] = decodeEntities(value)
  }
  return { action: new URL(decodeEntities(action), pageUrl).toString(), fields }
}

function decodeEntities(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
}
