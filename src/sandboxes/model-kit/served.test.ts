import { afterAll, beforeAll, expect, it } from 'vitest'
import { modelSandboxBindings } from '../index.ts'
import { startSandboxServer } from '../server.ts'

/** `npm start`'s sandbox server serves the model sandboxes beside the platforms', at the base URLs the registry gives. */

let server: Awaited<ReturnType<typeof startSandboxServer>>
beforeAll(async () => {
  server = await startSandboxServer()
})
afterAll(() => server.close())

it('serves OpenAI and Anthropic at the registry base URLs with the registry keys', async () => {
  const bindings = modelSandboxBindings(server.url)
  const openai = bindings.get('openai')!
  const models = await fetch(`${openai.baseUrl}/models`, {
    headers: { authorization: `Bearer ${openai.apiKey}` },
  })
  expect((await models.json()).data.map((m: { id: string }) => m.id)).toContain('sandbox-model')
  const anthropic = bindings.get('anthropic')!
  const message = await fetch(`${anthropic.baseUrl}/v1/messages`, {
    method: 'POST',
    headers: {
      'x-api-key': anthropic.apiKey,
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      model: 'sandbox-model',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    }),
  })
  expect([message.status, (await message.json()).type]).toEqual([200, 'message'])
})
