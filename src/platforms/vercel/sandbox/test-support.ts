import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SEED, startVercelSandbox, type StartedVercelSandbox } from './index.ts'

/** Helpers for the sandbox's own tests (real HTTP on 127.0.0.1). */

export interface TestSandbox extends StartedVercelSandbox {
  control(path: string, init?: { method?: string; body?: unknown }): Promise<{ status: number; body: any }>
  /** Mints a bearer token through the control API. */
  token(user?: string, teamId?: string): Promise<string>
  advance(ms: number): Promise<void>
}

export async function startTestSandbox(options: { seed?: boolean } = {}): Promise<TestSandbox> {
  const started = await startVercelSandbox(options)
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
    token: async (user = SEED.user.username, teamId) => {
      const minted = await control('/tokens', { body: { user, teamId } })
      if (minted.status !== 201) throw new Error(`mint failed: ${JSON.stringify(minted.body)}`)
      return minted.body.token as string
    },
    advance: async (ms) => {
      await control('/clock', { body: { advance_ms: ms } })
    },
  }
}

export interface JsonCall {
  status: number
  headers: Headers
  body: any
  text: string
}

export async function call(
  url: string,
  init: { method?: string; token?: string; json?: unknown; headers?: Record<string, string>; body?: string } = {},
): Promise<JsonCall> {
  const headers: Record<string, string> = { ...init.headers }
  if (init.token) headers.authorization = `Bearer ${init.token}`
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

const decodeEntities = (s: string) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')

/** The first `<form method="post" action="...">` of a page, its hidden inputs and select options. */
export function parseForm(html: string): { action: string; fields: Record<string, string>; options: string[] } {
  const form = /<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/.exec(html)
  if (!form) throw new Error(`no form in page:\n${html}`)
  const fields: Record<string, string> = {}
  for (const input of (form[2] as string).matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[decodeEntities(input[1] as string)] = decodeEntities(input[2] as string)
  }
  const options = [...(form[2] as string).matchAll(/<option value="([^"]*)">/g)].map((o) => decodeEntities(o[1] as string))
  return { action: decodeEntities(form[1] as string), fields, options }
}

export async function postForm(url: string, fields: Record<string, string> | URLSearchParams, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: (fields instanceof URLSearchParams ? fields : new URLSearchParams(fields)).toString(),
    redirect: 'manual',
  })
}

export interface Received {
  headers: IncomingMessage['headers']
  body: string
}

/** A local webhook receiver answering with the statuses given in turn (then the last one). */
export async function startReceiver(statuses: number[] = [200]): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() })
      res.statusCode = statuses[Math.min(received.length - 1, statuses.length - 1)] ?? 200
      res.end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
