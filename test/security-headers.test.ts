import fs from 'node:fs'
import path from 'node:path'
import Fastify from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { registerSecurityHeaders } from '../src/server/security-headers.ts'
import { WEB_DIST } from '../src/server/web.ts'

// Every response, API, web app, error and 404 alike, carries the security headers: a page of ours
// can never be framed, sniffed into another type, or run a script from elsewhere.
let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack()
})
afterAll(async () => {
  await stack?.close()
})

const hasWebBuild = fs.existsSync(path.join(WEB_DIST, 'index.html'))

function expectSecurityHeaders(headers: Headers, label: string) {
  const csp = headers.get('content-security-policy') ?? ''
  const directives = Object.fromEntries(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name, values.join(' ')]),
  )
  expect(directives, label).toMatchObject({
    'default-src': "'self'",
    'script-src': "'self'",
    'object-src': "'none'",
    'frame-ancestors': "'none'",
    'base-uri': "'self'",
    'form-action': "'self'",
  })
  expect(csp, label).not.toMatch(/unsafe-inline|unsafe-eval|\*/)
  expect(headers.get('x-frame-options'), label).toBe('DENY')
  expect(headers.get('x-content-type-options'), label).toBe('nosniff')
  expect(headers.get('referrer-policy'), label).toBe('no-referrer')
  // Plain HTTP here: no HSTS, and no upgrading of loads to an HTTPS that is not there.
  expect(headers.get('strict-transport-security'), label).toBeNull()
  expect(csp, label).not.toContain('upgrade-insecure-requests')
}

describe('security headers on every response', () => {
  it.each([
    ['an API answer', 'GET', '/health', true, 200],
    ['the OpenAPI document', 'GET', '/openapi.json', false, 200],
    ['an authenticated API answer', 'GET', '/v1/me', true, 200],
    ['an unauthenticated request', 'GET', '/v1/integrations', false, 401],
    ['an API 404', 'GET', '/v1/nothing-here', true, 404],
    ['a 400 on bad JSON', 'POST', '/v1/api-keys', true, 400],
    ['a 400 from the NUL guard', 'GET', '/v1/integrations/%00', true, 400],
    ['an OAuth callback redirect', 'GET', '/oauth/callback?state=nope', false, 303],
    ['a web page (the app when built, else a 404)', 'GET', '/integrations', false, hasWebBuild ? 200 : 404],
  ])('%s', async (label, method, url, withKey, status) => {
    const response = await fetch(`${stack.url}${url}`, {
      method,
      redirect: 'manual',
      headers: {
        ...(withKey ? { authorization: `Bearer ${stack.apiKey}` } : {}),
        ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
      },
      body: method === 'POST' ? '{"name":' : undefined,
    })
    await response.arrayBuffer()
    expect(response.status).toBe(status)
    expectSecurityHeaders(response.headers, label)
  })

  it.runIf(hasWebBuild)("the web app's script and style files", async () => {
    const html = await (await fetch(`${stack.url}/`)).text()
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1])
    expect(assets.length).toBeGreaterThan(0)
    for (const asset of assets) {
      const response = await fetch(`${stack.url}${asset}`)
      await response.arrayBuffer()
      expect(response.status).toBe(200)
      expectSecurityHeaders(response.headers, asset)
    }
  })

  it('an HTTPS deployment also gets HSTS and upgrades insecure loads', async () => {
    const app = Fastify()
    await registerSecurityHeaders(app, 'https://switchyard.example')
    app.get('/', async () => ({ ok: true }))
    const response = await app.inject({ method: 'GET', url: '/' })
    expect(response.headers['strict-transport-security']).toMatch(/max-age=31536000/)
    expect(response.headers['content-security-policy']).toContain('upgrade-insecure-requests')
    await app.close()
  })
})
