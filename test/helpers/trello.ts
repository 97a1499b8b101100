import { SEED } from '../../src/sandboxes/trello/seed.ts'
import { client, controlCaller } from './stack.ts'

export { SEED as TRELLO }

/** The Trello sandbox's control API (docs/sandbox.md). */
export function trelloControl(stack: { sandboxUrl: string }) {
  const call = controlCaller(`${stack.sandboxUrl}/trello/_control`)
  return {
    call,
    mintToken: async (member = 'ada', scope = 'read,write'): Promise<string> =>
      (await call('POST', '/tokens', { member, key: SEED.app.key, scope, expiration: 'never' })).body.token,
    requests: async (): Promise<Array<{ method: string; path: string; status: number }>> =>
      (await call('GET', '/requests?limit=100000')).body.requests,
    clearRequests: () => call('DELETE', '/requests'),
    fault: (fault: Record<string, unknown>) => call('POST', '/faults', fault),
    clearFaults: () => call('DELETE', '/faults'),
    /** Moves the sandbox clock forward; one rate-limit interval (10 s) gives every window a fresh count. */
    advanceClock: (ms: number) => call('POST', '/clock', { advance_ms: ms }),
  }
}

/** Connects Trello with an API key plus token minted for `member`; returns the integration id. */
export async function connectTrelloWithToken(
  stack: { url: string; apiKey: string; sandboxUrl: string },
  member = 'ada',
): Promise<string> {
  const token = await trelloControl(stack).mintToken(member)
  const res = await client(stack, stack.apiKey).post('/v1/integrations', {
    platform: 'trello',
    credentials: { key: SEED.app.key, token },
  })
  if (res.status !== 201) throw new Error(`connect failed: ${res.status} ${res.text}`)
  return res.body.id
}
