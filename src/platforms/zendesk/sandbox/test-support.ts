import { startZendeskSandbox, type StartedZendeskSandbox } from './index.ts'

/** Helpers for the sandbox's own tests (over real HTTP on 127.0.0.1). */

export interface TestSandbox extends StartedZendeskSandbox {
  /** Account base URL, e.g. `${url}/acme`. */
  base(subdomain: string): string
  control(path: string, init?: { method?: string; body?: unknown }): Promise<{ status: number; body: any }>
  /** Mints a bearer token through the control API. */
  token(subdomain: string, email: string, options?: { scopes?: string[]; expires_in?: number }): Promise<string>
}

export async function startTestSandbox(options: { seed?: boolean } = {}): Promise<TestSandbox> {
  const started = await startZendeskSandbox(options)
  const control: TestSandbox['control'] = async (path, init = {}) => {
    const response = await fetch(`${started.url}/_control${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: init.body === undefined ? {} : { 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    })
    const text = await response.text()
    return { status: response.status, body: text ? JSON.parse(text) : undefined }
  }
  return {
    ...started,
    base: (subdomain) => `${started.url}/${subdomain}`,
    control,
    token: async (subdomain, email, options = {}) => {
      const minted = await control(`/accounts/${subdomain}/tokens`, { body: { email, ...options } })
      if (minted.status !== 201) throw new Error(`mint failed: ${JSON.stringify(minted.body)}`)
      return minted.body.access_token as string
    },
  }
}

export function basic(login: string, secret: string): string {
  return `Basic ${Buffer.from(`${login}:${secret}`).toString('base64')}`
}

export function bearer(token: string): string {
  return `Bearer ${token}`
}

export interface JsonCall {
  status: number
  headers: Headers
  body: any
  text: string
}

/** fetch + JSON decode (body undefined when empty or not JSON). */
export async function call(url: string, init: { method?: string; auth?: string; json?: unknown; headers?: Record<string, string>; body?: string } = {}): Promise<JsonCall> {
  const headers: Record<string, string> = { ...init.headers }
  if (init.auth) headers.authorization = init.auth
  let body = init.body
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(init.json)
  }
  const response = await fetch(url, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body, redirect: 'manual' })
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    parsed = undefined
  }
  return { status: response.status, headers: response.headers, body: parsed, text }
}

export const ADMIN = 'admin@acme.test'
export const AGENT = 'agent@acme.test'
export const CUSTOMER = 'customer@acme.test'
export const PASSWORD = 'sandbox'

const decodeEntities = (s: string) =>
  s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')

/** The first `<form method="post" action="...">` of a page and its hidden inputs. */
export function parseForm(html: string): { action: string; fields: Record<string, string> } {
  const form = /<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/.exec(html)
  if (!form) throw new Error(`no form in page:\n${html}`)
  const fields: Record<string, string> = {}
  for (const input of (form[2] as string).matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[decodeEntities(input[1] as string)] = decodeEntities(input[2] as string)
  }
  return { action: decodeEntities(form[1] as string), fields }
}

/** POSTs a form body without following redirects. */
export async function postForm(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  })
}
