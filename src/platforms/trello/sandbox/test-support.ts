import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { startTrelloSandbox, type StartedTrelloSandbox } from './index.ts'
import { SEED } from './seed.ts'

/** Helpers for the sandbox's own tests (real HTTP on 127.0.0.1). */

export const KEY = SEED.app.key
export const SECRET = SEED.app.secret
export const ADA = SEED.members.ada
export const GRACE = SEED.members.grace
export const PASSWORD = SEED.password

export interface Call {
  status: number
  headers: Headers
  body: any
  text: string
}

export interface CallInit {
  method?: string
  headers?: Record<string, string>
  json?: unknown
  form?: Record<string, string>
  body?: string
}

/** fetch without following redirects; `body` is the parsed JSON, or undefined. */
export async function call(url: string, init: CallInit = {}): Promise<Call> {
  const headers: Record<string, string> = { ...init.headers }
  let body = init.body
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(init.json)
  } else if (init.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    body = new URLSearchParams(init.form).toString()
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

export interface TestSandbox extends StartedTrelloSandbox {
  control(path: string, init?: { method?: string; body?: unknown }): Promise<{ status: number; body: any }>
  /** Mints a token through the control API (default: all scopes, never expires). */
  token(member: string, options?: { scope?: string; expiration?: string; key?: string }): Promise<string>
  /** Calls `${url}${path}` with `key` and `token` in the query. */
  api(path: string, token: string, init?: CallInit & { key?: string }): Promise<Call>
  /** Performs an API request as another member (`POST /_control/act`). */
  act(member: string, method: string, path: string, params?: Record<string, unknown>): Promise<{ status: number; body: any }>
}

export async function startTestSandbox(options: { seed?: boolean } = {}): Promise<TestSandbox> {
  const started = await startTrelloSandbox(options)
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
    control,
    token: async (member, opts = {}) => {
      const minted = await control('/tokens', { body: { member, ...opts } })
      if (minted.status !== 201) throw new Error(`mint failed: ${JSON.stringify(minted.body)}`)
      return minted.body.token as string
    },
    api: (path, token, init = {}) => {
      const url = new URL(`${started.url}${path}`)
      url.searchParams.set('key', init.key ?? KEY)
      url.searchParams.set('token', token)
      return call(url.toString(), init)
    },
    act: async (member, method, path, params) => {
      const acted = await control('/act', { body: { member, method, path, params } })
      if (acted.status !== 200) throw new Error(`act failed: ${JSON.stringify(acted.body)}`)
      return acted.body
    },
  }
}

const decodeEntities = (s: string) =>
  s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')

/** Every `<form method="post" action="...">` of a page with its hidden inputs. */
export function parseForms(html: string): { action: string; fields: Record<string, string> }[] {
  return [...html.matchAll(/<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/g)].map((form) => {
    const fields: Record<string, string> = {}
    for (const input of (form[2] as string).matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
      fields[decodeEntities(input[1] as string)] = decodeEntities(input[2] as string)
    }
    return { action: decodeEntities(form[1] as string), fields }
  })
}

export function parseForm(html: string, index = 0): { action: string; fields: Record<string, string> } {
  const form = parseForms(html)[index]
  if (!form) throw new Error(`no form #${index} in page:\n${html}`)
  return form
}

export async function postForm(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  })
}

/** Signs in on an authorize-style page and returns the consent page's form. */
export async function signInAndConsent(pageUrl: string, email = ADA.email, password = PASSWORD): Promise<{ action: string; fields: Record<string, string>; html: string }> {
  const page = await fetch(pageUrl)
  const signIn = parseForm(await page.text(), 0)
  const consent = await postForm(signIn.action, { ...signIn.fields, email, password })
  const html = await consent.text()
  return { ...parseForm(html), html }
}

export interface ReceivedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: string
}

export interface Receiver {
  url: string
  received: ReceivedRequest[]
  /** Status to answer for the n-th request (0-based, HEAD checks included). Default 200. */
  respond: (request: ReceivedRequest, index: number) => number
  /** While set, answers wait for it (to show deliveries do not block the API). */
  gate: Promise<void> | null
  close(): Promise<void>
}

/** A local HTTP server standing in for a webhook receiver. */
export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: '', received: [], respond: () => 200, gate: null, close: async () => undefined }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', async () => {
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }
      const index = receiver.received.length
      receiver.received.push(request)
      if (receiver.gate) await receiver.gate
      res.statusCode = receiver.respond(request, index)
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return receiver
}

/** Waits until no delivery is pending and returns them all. */
export async function settledDeliveries(sandbox: TestSandbox, query = ''): Promise<any[]> {
  const answer = await sandbox.control(`/deliveries?settled=1&timeout_ms=10000${query}`)
  if (!answer.body.settled) throw new Error('deliveries did not settle')
  return answer.body.deliveries
}
