import { describe, expect, it } from 'vitest'
import { Subdomain } from './subdomain.ts'

describe('subdomain validation', () => {
  it.each([
    ['acme', 'acme'],
    ['  Acme ', 'acme'],
    ['acme.zendesk.com', 'acme'],
    ['https://acme.zendesk.com', 'acme'],
    ['https://acme.zendesk.com/agent/tickets/5', 'acme'],
    ['http://ACME.zendesk.com/', 'acme'],
    ['my-team-2', 'my-team-2'],
  ])('trims %j to %j', (typed, expected) => {
    expect(Subdomain.parse(typed)).toBe(expected)
  })

  it.each([
    ['', /part before \.zendesk\.com/],
    ['   ', /part before \.zendesk\.com/],
    ['acme.example.com', /only the part before/],
    ['-acme', /only the part before/],
    ['ac me', /only the part before/],
    ['acme_co', /only the part before/],
    ['a'.repeat(64), /at most 63/],
    ['acme.zendesk.com.evil.test', /only the part before/],
    ['user@acme', /only the part before/],
    ['ácme', /only the part before/],
  ])('refuses %j with a clear message', (typed, message) => {
    const result = Subdomain.safeParse(typed)
    expect(result.success).toBe(false)
    expect(result.error?.issues[0].message).toMatch(message)
  })

  it('refuses a non-string', () => {
    expect(Subdomain.safeParse(42).success).toBe(false)
    expect(Subdomain.safeParse(undefined).success).toBe(false)
  })
})
