import { describe, expect, it } from 'vitest'
import {
  parseApplies,
  parseConnectResult,
  parseTroubleshooting,
  safeNextPath,
  withQuery,
} from './url-state.ts'

describe('parseConnectResult', () => {
  it('reads a successful connection', () => {
    expect(parseConnectResult('?connected=int_123')).toEqual({ connected: 'int_123' })
  })

  it('reads an error with its troubleshooting rules', () => {
    const search = `?${new URLSearchParams({ error: 'Access was denied', troubleshooting: JSON.stringify(['Click Allow', 'Use an admin account']) })}`
    expect(parseConnectResult(search)).toEqual({
      error: {
        message: 'Access was denied',
        troubleshooting: ['Click Allow', 'Use an admin account'],
        applies: [],
      },
    })
  })

  it('reads the error code and which rules apply, as the OAuth callback sends them', () => {
    const search = `?${new URLSearchParams({ error: 'denied', code: 'connect_failed', troubleshooting: '["a","b"]', applies: '[1, 7, "x", -1]' })}`
    expect(parseConnectResult(search).error).toEqual({
      message: 'denied',
      code: 'connect_failed',
      troubleshooting: ['a', 'b'],
      applies: [1],
    })
  })

  it('gives an empty error a message', () => {
    expect(parseConnectResult('?error=').error?.message).toBe('The connection was not completed.')
  })

  it('has nothing to say about other queries', () => {
    expect(parseConnectResult('')).toEqual({})
    expect(parseConnectResult('?q=x')).toEqual({})
  })
})

describe('parseTroubleshooting', () => {
  it.each([
    [null, []],
    ['', []],
    ['["a", 2, "", "b"]', ['a', 'b']],
    ['"one rule"', ['one rule']],
    ['{"a":1}', []],
    ['not json', ['not json']],
  ])('%j → %j', (raw, rules) => expect(parseTroubleshooting(raw)).toEqual(rules))
})

describe('parseApplies', () => {
  it.each([
    [null, 3, []],
    ['[0, 2]', 3, [0, 2]],
    ['[3]', 3, []],
    ['{}', 3, []],
    ['nope', 3, []],
  ])('%j of %i rules → %j', (raw, count, applies) => expect(parseApplies(raw, count)).toEqual(applies))
})

describe('safeNextPath', () => {
  it.each([
    ['/tools?q=x', '/tools?q=x'],
    ['/integrations?connected=1', '/integrations?connected=1'],
    [null, '/integrations'],
    ['', '/integrations'],
    ['https://evil.test/', '/integrations'],
    ['//evil.test/', '/integrations'],
    ['/\\evil.test', '/integrations'],
    ['javascript:alert(1)', '/integrations'],
    ['/login?next=/tools', '/integrations'],
    ['/tools\n', '/integrations'],
  ])('%j → %j', (next, expected) => expect(safeNextPath(next)).toBe(expected))
})

describe('withQuery', () => {
  it('drops empty values and encodes the rest', () => {
    expect(withQuery('/tools', { q: 'create ticket', tool: null })).toBe('/tools?q=create+ticket')
    expect(withQuery('/tools', { q: '' })).toBe('/tools')
  })
})
