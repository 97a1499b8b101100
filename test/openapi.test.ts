import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { client } from './helpers/stack.ts'

let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack()
})
afterAll(async () => {
  await stack?.close()
})

describe('OpenAPI 3.1 document', () => {
  it('is served, describes every route the service answers, and has a run body per tool', async () => {
    const res = await fetch(`${stack.url}/openapi.json`)
    expect(res.status).toBe(200)
    const doc = (await res.json()) as any
    expect(doc.openapi).toBe('3.1.0')
    for (const path of [
      '/v1/integrations',
      '/v1/integrations/connect',
      '/v1/integrations/{id}/reconnect',
      '/v1/tools',
      '/v1/tools/{id}/run',
      '/v1/tools/{id}/options/{field}',
      '/v1/api-keys',
      '/v1/users',
      '/v1/users/{id}',
    ]) {
      expect(doc.paths[path], path).toBeDefined()
    }
    for (const path of [
      '/v1/agents',
      '/v1/agents/{id}',
      '/v1/agents/{id}/versions',
      '/v1/agents/{id}/signing-secret',
      '/v1/agents/{id}/runs',
      '/v1/agents/{id}/subscriptions',
      '/v1/runs',
      '/v1/runs/{id}',
      '/v1/runs/{id}/cancel',
      '/v1/runs/{id}/rerun',
      '/v1/runs/{id}/complete',
      '/v1/triggers',
      '/v1/triggers/{id}',
      '/v1/triggers/{id}/options/{field}',
      '/v1/subscriptions',
      '/v1/subscriptions/{id}',
      '/v1/subscriptions/{id}/activate',
      '/v1/subscriptions/{id}/deactivate',
      '/v1/subscriptions/{id}/preview',
      '/v1/subscriptions/{id}/test',
      '/v1/subscriptions/{id}/health',
      '/hooks/{token}',
    ]) {
      expect(doc.paths[path], path).toBeDefined()
    }
    expect(Object.keys(doc.paths['/hooks/{token}']).sort()).toEqual(['head', 'post'])
    expect(doc.paths['/v1/agents'].post.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/AgentInput',
    )
    // Every schema a path refers to is defined.
    const refs = JSON.stringify(doc).match(/#\/components\/schemas\/\w+/g) ?? []
    for (const ref of new Set(refs)) expect(doc.components.schemas[ref.split('/').at(-1)!], ref).toBeDefined()
    const tools = (await client(stack, stack.apiKey).get('/v1/tools')).body.tools
    const runBodies =
      doc.paths['/v1/tools/{id}/run'].post.requestBody.content['application/json'].schema.oneOf
    expect(runBodies.map((b: any) => b.title).sort()).toEqual(tools.map((t: any) => t.id).sort())
    expect(doc.components.schemas.Problem.properties.code.enum).toContain('rate_limited')
  })
})
