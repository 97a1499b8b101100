import type { StartedSandbox } from '../kit/start.ts'
import {
  call,
  controlOrThrow,
  parseForm,
  postForm,
  startSandboxForTest,
  type CallInit,
  type JsonCall,
  type SandboxControl,
} from '../kit/test-support.ts'
import { DEFAULT_PREFIX, trelloSandbox } from './index.ts'
import { SEED } from './seed.ts'

/** Helpers for the sandbox's own tests (real HTTP on 127.0.0.1); the generic ones live in the kit. */

export {
  call,
  parseForm,
  parseForms,
  postForm,
  startReceiver,
  type CallInit,
  type Receiver,
  type ReceivedRequest,
} from '../kit/test-support.ts'
export type Call = JsonCall

export const KEY = SEED.app.key
export const SECRET = SEED.app.secret
export const ADA = SEED.members.ada
export const GRACE = SEED.members.grace
export const PASSWORD = SEED.password

export interface TestSandbox extends StartedSandbox, SandboxControl {
  /** Mints a token through the control API (default: all scopes, never expires). */
  token(member: string, options?: { scope?: string; expiration?: string; key?: string }): Promise<string>
  /** Calls `${url}${path}` with `key` and `token` in the query. */
  api(path: string, token: string, init?: CallInit & { key?: string }): Promise<Call>
  /** Performs an API request as another member (`POST /_control/act`). */
  act(
    member: string,
    method: string,
    path: string,
    params?: Record<string, unknown>,
  ): Promise<{ status: number; body: any }>
}

export async function startTestSandbox(options: { seed?: boolean } = {}): Promise<TestSandbox> {
  const started = await startSandboxForTest(trelloSandbox(options), DEFAULT_PREFIX)
  return {
    ...started,
    token: async (member, opts = {}) =>
      (await controlOrThrow(started.control, '/tokens', { member, ...opts }, 201, 'mint')).token as string,
    api: (path, token, init = {}) => {
      const url = new URL(`${started.url}${path}`)
      url.searchParams.set('key', init.key ?? KEY)
      url.searchParams.set('token', token)
      return call(url.toString(), init)
    },
    act: (member, method, path, params) =>
      controlOrThrow(started.control, '/act', { member, method, path, params }, 200, 'act'),
  }
}

/** Signs in on an authorize-style page and returns the consent page's form. */
export async function signInAndConsent(
  pageUrl: string,
  email = ADA.email,
  password = PASSWORD,
): Promise<{ action: string; fields: Record<string, string>; html: string }> {
  const page = await fetch(pageUrl)
  const signIn = parseForm(await page.text(), 0)
  const consent = await postForm(signIn.action, { ...signIn.fields, email, password })
  const html = await consent.text()
  return { ...parseForm(html), html }
}

/** Waits until no delivery is pending and returns them all. */
export async function settledDeliveries(sandbox: TestSandbox, query = ''): Promise<any[]> {
  const answer = await sandbox.control(`/deliveries?settled=1&timeout_ms=10000${query}`)
  if (!answer.body.settled) throw new Error('deliveries did not settle')
  return answer.body.deliveries
}
