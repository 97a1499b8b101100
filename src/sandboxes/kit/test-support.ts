import type { FastifyPluginAsync } from 'fastify'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { startSandbox, type StartedSandbox } from './start.ts'

/**
 * Helpers shared by the sandboxes' own tests (real HTTP on 127.0.0.1). Each platform's
 * test-support.ts builds on these and adds its seed constants, token minting and auth helpers.
 */

export interface JsonCall {
  status: number
  headers: Headers
  /** The parsed JSON, or undefined when the body is empty or not JSON (tests assert on `text` then). */
  body: any
  text: string
}

export interface CallInit {
  method?: string
  headers?: Record<string, string>
  /** Sent as the `authorization` header, over any given in `headers`. */
  authorization?: string
  json?: unknown
  form?: Record<string, string>
  body?: string
}

/** fetch without following redirects (tests assert on the 3xx itself) and decode the JSON answer. */
export async function call(url: string, init: CallInit = {}): Promise<JsonCall> {
  const headers: Record<string, string> = { ...init.headers }
  if (init.authorization) headers.authorization = init.authorization
  let body = init.body
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(init.json)
  } else if (init.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    body = new URLSearchParams(init.form).toString()
  }
  const response = await fetch(url, {
    method: init.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
    redirect: 'manual',
  })
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    parsed = undefined
  }
  return { status: response.status, headers: response.headers, body: parsed, text }
}

/** A JSON call to the sandbox's `/_control` API; POST when a body is given. */
export type ControlCall = (
  path: string,
  init?: { method?: string; body?: unknown },
) => Promise<{ status: number; body: any }>

export interface SandboxControl {
  control: ControlCall
}

/** A started sandbox plus `control()` bound to its URL: the base every platform's TestSandbox extends. */
export function withControl<S extends { url: string }>(started: S): S & SandboxControl {
  const control: ControlCall = async (path, init = {}) => {
    const response = await fetch(`${started.url}/_control${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: init.body === undefined ? {} : { 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    })
    const text = await response.text()
    // Unlike call(), a non-JSON control answer is a sandbox bug, so let JSON.parse throw.
    return { status: response.status, body: text ? JSON.parse(text) : undefined }
  }
  return { ...started, control }
}

/**
 * POSTs a setup step (minting a token, acting as someone) that a test cannot go on without,
 * and throws with the answer when it does not come back with `expected`, so the failure says why.
 */
export async function controlOrThrow(
  control: ControlCall,
  path: string,
  body: unknown,
  expected: number,
  what: string,
): Promise<any> {
  const answer = await control(path, { body })
  if (answer.status !== expected) throw new Error(`${what} failed: ${JSON.stringify(answer.body)}`)
  return answer.body
}

export interface ParsedForm {
  action: string
  /** Hidden inputs, which carry the page's state (CSRF token, session, step). */
  fields: Record<string, string>
  /** Values of the form's `<option>`s, for pages that offer a choice. */
  options: string[]
}

// The sandboxes' pages escape only these five, so this is all a test needs to undo.
const decodeEntities = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')

/** Every `<form method="post" action="...">` of a sandbox page. */
export function parseForms(html: string): ParsedForm[] {
  return [...html.matchAll(/<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/g)].map((form) => {
    const inner = form[2] as string
    const fields: Record<string, string> = {}
    for (const input of inner.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
      fields[decodeEntities(input[1] as string)] = decodeEntities(input[2] as string)
    }
    const options = [...inner.matchAll(/<option value="([^"]*)">/g)].map((option) =>
      decodeEntities(option[1] as string),
    )
    return { action: decodeEntities(form[1] as string), fields, options }
  })
}

/** The `index`-th post form of a page; throws with the page so a wrong page is easy to see. */
export function parseForm(html: string, index = 0): ParsedForm {
  const form = parseForms(html)[index]
  if (!form) throw new Error(`no form #${index} in page:\n${html}`)
  return form
}

/** POSTs a form body without following redirects (tests assert on the redirect itself). */
export async function postForm(
  url: string,
  fields: Record<string, string> | URLSearchParams,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: (fields instanceof URLSearchParams ? fields : new URLSearchParams(fields)).toString(),
    redirect: 'manual',
  })
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

/** A local HTTP server standing in for a webhook receiver; it answers with an empty body. */
export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    received: [],
    respond: () => 200,
    gate: null,
    close: async () => undefined,
  }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', async () => {
      const request = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      }
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
      // Deliveries keep connections alive; without this close() would wait for them to time out.
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return receiver
}

/**
 * Starts a sandbox plugin on 127.0.0.1 (ephemeral port) for a test, with `control()` bound to it:
 * each platform's `startTestSandbox` is this plus its own helpers.
 */
export async function startSandboxForTest(
  plugin: FastifyPluginAsync,
  prefix: string,
): Promise<StartedSandbox & SandboxControl> {
  return withControl(await startSandbox(plugin, prefix))
}

/** A sandbox home page's form secret (kit/home-page.ts), read from the page as a browser would. */
export async function homeFormToken(pageUrl: string): Promise<string> {
  const html = await (await fetch(pageUrl)).text()
  const match = /name="form_token" value="([^"]+)"/.exec(html)
  if (!match) throw new Error(`no form token in:\n${html}`)
  return match[1] as string
}

/**
 * Posts one of a home page's forms with the page's secret and, when it answers a redirect, follows
 * it: the post's status and location, and the page shown after it (or the refusal page).
 */
export async function submitHomeForm(
  pageUrl: string,
  fields: Record<string, string>,
): Promise<{ status: number; location: string | null; page: string }> {
  const posted = await postForm(pageUrl, { form_token: await homeFormToken(pageUrl), ...fields })
  const location = posted.headers.get('location')
  const page = location ? await (await fetch(location)).text() : await posted.text()
  return { status: posted.status, location, page }
}

/**
 * What keeps a refusal page from being read by a person, as a list (empty: readable): its reason
 * (`#error`) missing, carrying JSON or a raw body, or no link back to `back` (the page of the form).
 */
export function unreadableRefusal(html: string, back: string): string[] {
  const problems: string[] = []
  if (!/^<!doctype html>/i.test(html.trim())) problems.push('not an HTML page')
  const reason = /<p[^>]* id="error"[^>]*>([^<]*)<\/p>/.exec(html)?.[1]
  if (!reason?.trim()) problems.push('no reason (#error)')
  else {
    const words = reason
      .replaceAll('&quot;', '"')
      .replaceAll('&#39;', "'")
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replaceAll('&amp;', '&')
    if (/[{}[\]]|"\w+"\s*:/.test(words)) problems.push(`the reason carries JSON: ${words}`)
    // Words, not a code: at least two plain words ("RecordInvalid", "invalid_token" and "403" are not).
    const plain = words.split(/\s+/).filter((w) => /^[a-z'’]{2,}[.,:;!?]?$/i.test(w))
    if (plain.length < 2) problems.push(`the reason is not in words: ${words}`)
  }
  const escapedBack = back.replaceAll('&', '&amp;')
  if (!html.includes(`href="${escapedBack}"`)) problems.push(`no link back to ${back}`)
  return problems
}
