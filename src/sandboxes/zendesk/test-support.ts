import type { StartedSandbox } from '../kit/start.ts'
import {
  call as coreCall,
  controlOrThrow,
  startSandboxForTest,
  type CallInit,
  type JsonCall,
  type SandboxControl,
} from '../kit/test-support.ts'
import { DEFAULT_PREFIX, zendeskSandbox } from './index.ts'

/** Helpers for the sandbox's own tests (over real HTTP on 127.0.0.1); the generic ones live in the kit. */

export { parseForm, postForm, type JsonCall } from '../kit/test-support.ts'

export const ADMIN = 'admin@acme.test'
export const AGENT = 'agent@acme.test'
export const CUSTOMER = 'customer@acme.test'
export const PASSWORD = 'sandbox'

export interface TestSandbox extends StartedSandbox, SandboxControl {
  /** Account base URL, e.g. `${url}/acme`. */
  base(subdomain: string): string
  /** Mints a bearer token through the control API. */
  token(
    subdomain: string,
    email: string,
    options?: { scopes?: string[]; expires_in?: number },
  ): Promise<string>
}

export async function startTestSandbox(options: { seed?: boolean } = {}): Promise<TestSandbox> {
  const started = await startSandboxForTest(zendeskSandbox(options), DEFAULT_PREFIX)
  return {
    ...started,
    base: (subdomain) => `${started.url}/${subdomain}`,
    token: async (subdomain, email, options = {}) =>
      (
        await controlOrThrow(
          started.control,
          `/accounts/${subdomain}/tokens`,
          { email, ...options },
          201,
          'mint',
        )
      ).access_token as string,
  }
}

export function basic(login: string, secret: string): string {
  return `Basic ${Buffer.from(`${login}:${secret}`).toString('base64')}`
}

export function bearer(token: string): string {
  return `Bearer ${token}`
}

/** fetch + JSON decode (body undefined when empty or not JSON); `auth` is the whole authorization header. */
export function call(url: string, { auth, ...init }: CallInit & { auth?: string } = {}): Promise<JsonCall> {
  return coreCall(url, { ...init, authorization: auth })
}
