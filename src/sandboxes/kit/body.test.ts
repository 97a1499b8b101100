import { describe, expect, it } from 'vitest'
import { parseBody, type BodyRules } from './body.ts'

const ZENDESK: BodyRules = { untyped: 'json', otherTypes: 'ignore', repeatedFormNames: 'last' }
const TRELLO: BodyRules = { untyped: 'json-or-form', otherTypes: 'ignore', repeatedFormNames: 'last' }
const VERCEL: BodyRules = { untyped: 'json', otherTypes: 'json', repeatedFormNames: 'all' }

const request = (rawBody: string | undefined, contentType?: string) => ({
  rawBody,
  headers: contentType === undefined ? {} : { 'content-type': contentType },
})

describe('one body parser, each platform reading bodies by its own rules', () => {
  it.each([
    ['no body', undefined, undefined, { ok: true, value: undefined }],
    ['blank body', ' \n ', 'application/json', { ok: true, value: undefined }],
    ['JSON', '{"a":1}', 'application/json; charset=utf-8', { ok: true, value: { a: 1 } }],
    ['merge-patch JSON', '{"a":null}', 'application/merge-patch+json', { ok: true, value: { a: null } }],
    ['a JSON array', '[1]', 'application/json', { ok: true, value: [1] }],
    [
      'a form, names repeated',
      'a=1&a=2&b=%C3%A9',
      'application/x-www-form-urlencoded',
      { ok: true, value: { a: '2', b: 'é' } },
    ],
    ['untyped JSON', '{"a":1}', undefined, { ok: true, value: { a: 1 } }],
    ['text', 'hello', 'text/plain', { ok: true, value: undefined }],
  ])('reads %s the same way everywhere it is not a platform choice', (_what, raw, type, expected) => {
    expect(parseBody(request(raw, type), ZENDESK)).toEqual(expected)
    expect(parseBody(request(raw, type), TRELLO)).toEqual(expected)
  })

  it.each([
    ['{"a":', 'application/json'],
    ['{"a":1', undefined],
    ['nul\u0000', 'application/json'],
  ])('refuses malformed JSON %j (%s), naming why', (raw, type) => {
    const parsed = parseBody(request(raw, type), ZENDESK)
    expect(parsed.ok).toBe(false)
    expect(parsed.ok ? '' : parsed.reason).not.toBe('')
  })

  it('reads an untyped body that is not JSON as a form only where the platform does (Trello)', () => {
    expect(parseBody(request('name=x&pos=top'), TRELLO)).toEqual({
      ok: true,
      value: { name: 'x', pos: 'top' },
    })
    expect(parseBody(request('name=x&pos=top'), ZENDESK).ok).toBe(false)
    // An untyped body that starts like JSON stays a JSON error, not a one-field form.
    expect(parseBody(request('{"name":'), TRELLO).ok).toBe(false)
  })

  it('keeps repeated form names and reads other types as JSON where the platform does (Vercel)', () => {
    expect(parseBody(request('a=1&a=2&b=3', 'application/x-www-form-urlencoded'), VERCEL)).toEqual({
      ok: true,
      value: { a: ['1', '2'], b: '3' },
    })
    expect(parseBody(request('{"a":1}', 'text/plain'), VERCEL)).toEqual({ ok: true, value: { a: 1 } })
    expect(parseBody(request('hello', 'text/plain'), VERCEL).ok).toBe(false)
  })
})
