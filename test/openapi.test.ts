import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from '../src/server/app.ts'
import { client } from './helpers/stack.ts'

let stack: TestStack
beforeAll(async () => { stack = await startTestStack() })
afterAll(async () => { await stack?.close() })

describe('OpenAPI 3.1 document', () => {
  it('is served, describes every route the service answers, and has a run body per tool', async () => {
    const res = await fetch(`${stack.url}/openapi.json`)
    expect(res.status).toBe(200)
    const doc = await res.json() as any
    expect(doc.openapi).toBe('3.1.0')
    for (const path of ['/v1/integrations', '/v1/integrations/connect', '/v1/integrations/{id}/reconnect', '/v1/tools', '/v1/tools/{id}/run', '/v1/tools/{id}/options/{field}', '/v1/api-keys', '/v1/users', '/v1/users/{id}']) {
      expect(doc.paths[path], path).toBeDefined()
    }
    const tools = (await client(stack, stack.apiKey).get('/v1/tools')).body.tools
    const runBodies = doc.paths['/v1/tools/{id}/run'].post.requestBody.content['application/json'].schema.oneOf
    expect(runBodies.map((b: any) => b.title).sort()).toEqual(tools.map((t: any) => t.id).sort())
    expect(doc.components.schemas.Problem.properties.code.enum).toContain('rate_limited')
  })
})
