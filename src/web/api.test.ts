import { afterEach, describe, expect, it, vi } from 'vitest'
import { api, ApiError, onUnauthenticated, request, toProblem } from './api.ts'

describe('toProblem', () => {
  it('keeps the members of a problem+json body', () => {
    const p = toProblem(400, {
      type: 'https://switchyard.dev/problems/invalid_input',
      title: 'Invalid input',
      status: 400,
      code: 'invalid_input',
      detail: 'input.subject: Too small',
      errors: [{ field: 'input.subject', message: 'Too small' }, 'junk'],
    })
    expect(p).toEqual({
      type: 'https://switchyard.dev/problems/invalid_input',
      title: 'Invalid input',
      status: 400,
      code: 'invalid_input',
      detail: 'input.subject: Too small',
      errors: [{ field: 'input.subject', message: 'Too small' }],
    })
  })

  it('keeps troubleshooting, applies and the code-specific members', () => {
    const p = toProblem(400, {
      title: 'Auth',
      code: 'connect_failed',
      troubleshooting: ['a', 1, 'b'],
      applies: [1, 'x'],
    })
    expect(p.troubleshooting).toEqual(['a', 'b'])
    expect(p.applies).toEqual([1])
    expect(toProblem(402, { code: 'plan_required', title: 'Plan', required_plan: 'pro' }).required_plan).toBe(
      'pro',
    )
    expect(toProblem(429, { code: 'rate_limited', title: 'Slow down', retry_after: 3 }).retry_after).toBe(3)
  })

  it.each([
    [404, null, 'not_found'],
    [401, 'Unauthorized', 'unauthenticated'],
    [503, '<html>down</html>', 'server_error'],
    [418, [], 'error'],
    [400, { code: 'not_a_server_code' }, 'invalid_input'],
  ])('makes a problem of a %i with a non-problem body', (status, body, code) => {
    const p = toProblem(status, body, 'Status text')
    expect(p.code).toBe(code)
    expect(p.status).toBe(status)
    expect(p.title).toBe('Status text')
  })
})

describe('request', () => {
  const calls: { url: string; init: RequestInit }[] = []
  const respond = (status: number, body?: unknown, type = 'application/json') =>
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (url, init) => {
      calls.push({ url: String(url), init: init ?? {} })
      return new Response(body === undefined ? null : JSON.stringify(body), {
        status,
        headers: body === undefined ? {} : { 'content-type': type },
      })
    })

  afterEach(() => {
    vi.restoreAllMocks()
    calls.length = 0
  })

  it('sends JSON with a Content-Type on state-changing calls, with the session cookie', async () => {
    respond(201, { connect_url: '/oauth/start?x', expires_at: 'later' })
    await api.connect('zendesk', { subdomain: 'acme' })
    const { url, init } = calls[0]
    expect(url).toBe('/v1/integrations/connect')
    expect(init.method).toBe('POST')
    expect(init.credentials).toBe('same-origin')
    expect((init.headers as Record<string, string>)['Content-Type']).toBe('application/json')
    expect(JSON.parse(String(init.body))).toEqual({ platform: 'zendesk', fields: { subdomain: 'acme' } })
  })

  it('sends an empty JSON object when a state-changing call has no body', async () => {
    respond(204)
    await expect(api.deleteIntegration('a/b')).resolves.toBeUndefined()
    expect(calls[0].url).toBe('/v1/integrations/a%2Fb')
    expect(calls[0].init.body).toBe('{}')
  })

  it('sends no body on GET', async () => {
    respond(200, { tools: [] })
    await api.searchTools('  create ticket ')
    expect(calls[0].url).toBe('/v1/tools?q=create%20ticket')
    expect(calls[0].init.body).toBeUndefined()
    expect((calls[0].init.headers as Record<string, string>)['Content-Type']).toBeUndefined()
  })

  it('throws an ApiError carrying the problem', async () => {
    respond(
      400,
      {
        title: 'Invalid input',
        status: 400,
        code: 'invalid_input',
        errors: [{ field: 'fields.subdomain', message: 'Bad' }],
      },
      'application/problem+json',
    )
    const err = await api.connect('zendesk', { subdomain: 'x y' }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).code).toBe('invalid_input')
    expect((err as ApiError).problem.errors).toEqual([{ field: 'fields.subdomain', message: 'Bad' }])
  })

  it('tells listeners about a lost session, except when signing in', async () => {
    const lost = vi.fn()
    const off = onUnauthenticated(lost)
    respond(
      401,
      { title: 'Unauthenticated', status: 401, code: 'unauthenticated' },
      'application/problem+json',
    )
    await expect(api.signIn('sy_wrong')).rejects.toBeInstanceOf(ApiError)
    expect(lost).not.toHaveBeenCalled()
    await expect(api.integrationsPage()).rejects.toMatchObject({ status: 401 })
    expect(lost).toHaveBeenCalledTimes(1)
    off()
  })

  it('turns a network failure into a network_error problem', async () => {
    vi.spyOn(globalThis, 'fetch').mockRejectedValue(new TypeError('fetch failed'))
    await expect(request('GET', '/v1/me')).rejects.toMatchObject({
      problem: { code: 'network_error', status: 0 },
    })
  })
})
