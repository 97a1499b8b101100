import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiClientFactory } from '../src/core/connections/clients.ts'
import { DEFAULT_UPSTREAM_TIMEOUT_MS, loadConfig } from '../src/core/config.ts'
import { RateBudget } from '../src/core/limits/budget.ts'
import { MemoryBudgetStore } from '../src/core/limits/budget-memory.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectZendesk } from './helpers/connect.ts'
import { storedTokens, zendeskControl } from './helpers/stack.ts'

// Every exchange with a platform has an overall deadline (SWITCHYARD_UPSTREAM_TIMEOUT_MS), not only
// idle timeouts: a platform that is slow to answer gets a clear upstream timeout (issue 9, §3.11).

let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack()
})
afterAll(async () => {
  await stack?.close()
})

describe('the upstream deadline', () => {
  it('a platform slower than the deadline answers upstream_error saying so', async () => {
    const integration = (await connectZendesk(stack)).integrationId!
    const runtime = stack.services.runtimes.get('zendesk')!
    const credential = await storedTokens(stack, integration)
    const row = await stack.services.integrations.get(stack.userId, integration)
    const api = new ApiClientFactory(new RateBudget(new MemoryBudgetStore()), 200).forCredential(
      runtime,
      row.fields,
      { ...credential, kind: 'oauth2' },
      'test',
    )
    await zendeskControl(stack).fault({
      latency_ms: 5_000,
      match: { path: '/api/v2/tickets.json' },
      times: 1,
    })
    try {
      await expect(api.get('/api/v2/tickets.json')).rejects.toMatchObject({
        code: 'upstream_error',
        message: 'the platform did not answer within 0.2 s',
      })
    } finally {
      await zendeskControl(stack).clearFaults()
    }
  })

  it.each([
    [{}, DEFAULT_UPSTREAM_TIMEOUT_MS],
    [{ SWITCHYARD_UPSTREAM_TIMEOUT_MS: '2500' }, 2500],
    [{ SWITCHYARD_UPSTREAM_TIMEOUT_MS: '' }, DEFAULT_UPSTREAM_TIMEOUT_MS],
  ])('SWITCHYARD_UPSTREAM_TIMEOUT_MS from %j is %i ms', (env, expected) => {
    expect(loadConfig(env).upstreamTimeoutMs).toBe(expected)
  })

  it.each(['0', 'soon', '2.5', '-1'])(
    'SWITCHYARD_UPSTREAM_TIMEOUT_MS=%s is refused, not replaced by the default',
    (value) => {
      expect(() => loadConfig({ SWITCHYARD_UPSTREAM_TIMEOUT_MS: value })).toThrow(
        /SWITCHYARD_UPSTREAM_TIMEOUT_MS must be a whole number of at least 1/,
      )
    },
  )
})
