import type { StartedSandbox } from '../kit/start.ts'
import {
  call as coreCall,
  controlOrThrow,
  startReceiver as startCoreReceiver,
  startSandboxForTest,
  type CallInit,
  type JsonCall,
  type Receiver,
  type ReceivedRequest,
  type SandboxControl,
} from '../kit/test-support.ts'
import { DEFAULT_PREFIX, SEED, vercelSandbox } from './index.ts'

/** Helpers for the sandbox's own tests (real HTTP on 127.0.0.1); the generic ones live in the kit. */

export { parseForm, postForm, type JsonCall } from '../kit/test-support.ts'
export type Received = ReceivedRequest

export interface TestSandbox extends StartedSandbox, SandboxControl {
  /** Mints a bearer token through the control API. */
  token(user?: string, teamId?: string): Promise<string>
  advance(ms: number): Promise<void>
}

export async function startTestSandbox(options: { seed?: boolean } = {}): Promise<TestSandbox> {
  const started = await startSandboxForTest(vercelSandbox(options), DEFAULT_PREFIX)
  return {
    ...started,
    token: async (user = SEED.user.username, teamId) =>
      (await controlOrThrow(started.control, '/tokens', { user, teamId }, 201, 'mint')).token as string,
    advance: async (ms) => {
      await started.control('/clock', { body: { advance_ms: ms } })
    },
  }
}

/** fetch + JSON decode without following redirects; `token` is sent as a bearer token. */
export function call(url: string, { token, ...init }: CallInit & { token?: string } = {}): Promise<JsonCall> {
  return coreCall(url, { ...init, authorization: token ? `Bearer ${token}` : undefined })
}

/** A local webhook receiver answering with the statuses given in turn (then the last one). */
export async function startReceiver(statuses: number[] = [200]): Promise<Receiver> {
  const receiver = await startCoreReceiver()
  receiver.respond = (_request, index) => statuses[Math.min(index, statuses.length - 1)] ?? 200
  return receiver
}
