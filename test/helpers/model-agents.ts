import { randomUUID } from 'node:crypto'
import { expect } from 'vitest'
import { client, controlCaller } from './stack.ts'

/** A model connection to the OpenAI sandbox with a key of its own, and scenarios bound to that key. */
export async function scriptedModel(
  stack: { url: string; sandboxUrl: string },
  apiKey: string,
  turns: unknown[],
  protocol: 'openai-chat' | 'openai-responses' | 'anthropic' = 'openai-chat',
): Promise<{ connectionId: string; key: string; calls: () => Promise<any[]> }> {
  const key = protocol === 'anthropic' ? `sk-ant-${randomUUID()}` : `sk-${randomUUID()}`
  const mount = protocol === 'anthropic' ? 'anthropic' : 'openai'
  const control = controlCaller(`${stack.sandboxUrl}/${mount}/_control`)
  const scenario = await control('POST', '/scenarios', { api_key: key, turns })
  expect(scenario.status, JSON.stringify(scenario.body)).toBe(201)
  const api = client(stack, apiKey)
  const created = await api.post('/v1/model-connections', {
    name: `scripted ${key.slice(-8)}`,
    protocol,
    base_url: protocol === 'anthropic' ? `${stack.sandboxUrl}/anthropic` : `${stack.sandboxUrl}/openai/v1`,
    api_key: key,
  })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  return {
    connectionId: created.body.id,
    key,
    calls: async () => (await control('GET', `/calls?scenario=${scenario.body.id}`)).body.calls as any[],
  }
}

export async function waitForRun(
  api: ReturnType<typeof client>,
  runId: string,
  done: (run: any) => boolean,
  timeoutMs = 20_000,
): Promise<any> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const { body } = await api.get(`/v1/runs/${runId}`)
    if (done(body)) return body
    if (Date.now() > until)
      throw new Error(`run ${runId} stayed ${body.status}: ${JSON.stringify(body).slice(0, 2000)}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

export const settled = (run: any) => !['queued', 'running'].includes(run.status)
