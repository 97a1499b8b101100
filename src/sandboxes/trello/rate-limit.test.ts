import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startTestSandbox, type TestSandbox } from './test-support.ts'

let sandbox: TestSandbox

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())
beforeEach(async () => {
  await sandbox.control('/reset', { body: {} })
  // Start each test at the beginning of a 10-second window.
  const now = (await sandbox.control('/clock')).body.now_ms as number
  await sandbox.control('/clock', { body: { advance_ms: 10_000 - (now % 10_000) } })
})

function rateHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {}
  headers.forEach((value, name) => {
    if (name.startsWith('x-rate-limit-')) out[name] = value
  })
  return out
}

describe('rate limits', () => {
  it('every API answer carries the token and key headers (T-TACO names)', async () => {
    const token = await sandbox.token('ada')
    const first = await sandbox.api('/1/members/me', token)
    expect(rateHeaders(first.headers)).toEqual({
      'x-rate-limit-api-token-interval-ms': '10000',
      'x-rate-limit-api-token-max': '100',
      'x-rate-limit-api-token-remaining': '99',
      'x-rate-limit-api-key-interval-ms': '10000',
      'x-rate-limit-api-key-max': '300',
      'x-rate-limit-api-key-remaining': '299',
    })
    const second = await sandbox.api('/1/boards/Rdmp2024', token)
    expect(second.headers.get('x-rate-limit-api-token-remaining')).toBe('98')
    // Errors after authentication count and carry the headers too.
    const missing = await sandbox.api(`/1/cards/${'0'.repeat(24)}`, token)
    expect(missing.headers.get('x-rate-limit-api-key-remaining')).toBe('297')
  })

  it('the 101st request of a token in 10 s gets API_TOKEN_LIMIT_EXCEEDED; the next window is fresh', async () => {
    const token = await sandbox.token('ada')
    const other = await sandbox.token('grace')
    for (let i = 0; i < 100; i += 1) expect((await sandbox.api('/1/members/me', token)).status).toBe(200)
    const refused = await sandbox.api('/1/members/me', token)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/)
    expect(refused.body).toEqual({ error: 'API_TOKEN_LIMIT_EXCEEDED', message: 'Rate limit exceeded' })
    expect(refused.headers.get('x-rate-limit-api-token-remaining')).toBe('0')
    expect(refused.headers.get('x-rate-limit-api-key-remaining')).toBe('200')
    // Another token of the same key still has budget.
    expect((await sandbox.api('/1/members/me', other)).status).toBe(200)
    await sandbox.control('/clock', { body: { advance_ms: 10_000 } })
    const again = await sandbox.api('/1/members/me', token)
    expect(again.status).toBe(200)
    expect(again.headers.get('x-rate-limit-api-token-remaining')).toBe('99')
  })

  it('a key over its limit gets API_KEY_LIMIT_EXCEEDED for every token', async () => {
    await sandbox.control('/rate-limits', { method: 'PUT', body: { key_max: 5, token_max: 3 } })
    const tokens = [await sandbox.token('ada'), await sandbox.token('grace')]
    for (let i = 0; i < 3; i += 1) expect((await sandbox.api('/1/members/me', tokens[0]!)).status).toBe(200)
    expect((await sandbox.api('/1/members/me', tokens[0]!)).body.error).toBe('API_TOKEN_LIMIT_EXCEEDED')
    for (let i = 0; i < 2; i += 1) expect((await sandbox.api('/1/members/me', tokens[1]!)).status).toBe(200)
    const refused = await sandbox.api('/1/members/me', tokens[1]!)
    expect(refused.status).toBe(429)
    expect(refused.body).toEqual({ error: 'API_KEY_LIMIT_EXCEEDED', message: 'Rate limit exceeded' })
    expect(refused.headers.get('x-rate-limit-api-key-max')).toBe('5')
    expect(refused.headers.get('x-rate-limit-api-key-remaining')).toBe('0')
  })

  it('the control API can change the window or turn limits off', async () => {
    const token = await sandbox.token('ada')
    const set = await sandbox.control('/rate-limits', {
      method: 'PUT',
      body: { token_max: 1, interval_ms: 1000 },
    })
    expect(set.body).toEqual({ token_max: 1, key_max: 300, interval_ms: 1000, disabled: false })
    expect(
      (await sandbox.api('/1/members/me', token)).headers.get('x-rate-limit-api-token-interval-ms'),
    ).toBe('1000')
    expect((await sandbox.api('/1/members/me', token)).status).toBe(429)
    await sandbox.control('/clock', { body: { advance_ms: 1000 } })
    expect((await sandbox.api('/1/members/me', token)).status).toBe(200)

    await sandbox.control('/rate-limits', { method: 'PUT', body: { disabled: true } })
    for (let i = 0; i < 5; i += 1) {
      const answer = await sandbox.api('/1/members/me', token)
      expect(answer.status).toBe(200)
      expect(answer.headers.get('x-rate-limit-api-token-remaining')).toBeNull()
    }
    expect((await sandbox.control('/rate-limits', { method: 'PUT', body: { token_max: 0 } })).status).toBe(
      400,
    )
    expect((await sandbox.control('/rate-limits', { method: 'PUT', body: { reset: true } })).body).toEqual({
      token_max: 100,
      key_max: 300,
      interval_ms: 10000,
      disabled: false,
    })
  })

  it('requests refused before authentication do not count, and control `act` is not limited', async () => {
    await sandbox.control('/rate-limits', { method: 'PUT', body: { token_max: 2 } })
    const token = await sandbox.token('ada')
    for (let i = 0; i < 5; i += 1) await sandbox.act('ada', 'GET', '/1/members/me')
    await sandbox.api('/1/members/me', token, { key: 'f'.repeat(32) })
    expect((await sandbox.api('/1/members/me', token)).headers.get('x-rate-limit-api-token-remaining')).toBe(
      '1',
    )
  })
})
