import { describe, expect, it } from 'vitest'
import type { ModelEndpoint } from './client.ts'
import type { ModelConnections } from './connections.ts'
import { ModelOfRun } from './run-client.ts'

describe('the model client of a run in progress', () => {
  it('uses a rotated key on its next model call, with no stale client kept', async () => {
    let key = 'sk-old'
    const connections = {
      endpoint: async () => ({ protocol: 'openai-chat', baseUrl: 'https://x.test/v1', apiKey: key }),
    } as unknown as ModelConnections
    const made: Array<string | null> = []
    const run = new ModelOfRun(
      connections,
      (e: ModelEndpoint) => {
        made.push(e.apiKey)
        return { call: async () => ({}) as never }
      },
      'u',
      'mc',
    )
    const first = await run.client()
    expect(await run.client()).toBe(first)
    key = 'sk-new'
    await run.client()
    expect(made).toEqual(['sk-old', 'sk-new'])
  })
})
