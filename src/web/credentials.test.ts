import { describe, expect, it } from 'vitest'
import {
  connectMethodsOf,
  credentialHelpQuery,
  credentialsToSend,
  emptyCredentials,
  isPlausibleKey,
  safeHttpUrl,
  splitLinks,
} from './credentials.ts'

const KEY = '0123456789abcdef0123456789abcdef'
const TOKEN_PAGE = `http://127.0.0.1:4010/trello/1/authorize?expiration=never&name=Switchyard&scope=read%2Cwrite&response_type=token&key=${KEY}`
const fields = [
  { name: 'key', label: 'API key', secret: true },
  { name: 'token', label: 'Token', secret: true },
]

describe('connectMethodsOf', () => {
  it('offers both ways when the platform takes pasted credentials', () => {
    expect(
      connectMethodsOf({ connect_methods: ['authorize', 'credentials'], credential_fields: fields }),
    ).toEqual(['authorize', 'credentials'])
  })

  it('offers only the authorization page otherwise, including for servers that predate connect_methods', () => {
    expect(connectMethodsOf({ connect_methods: ['authorize'], credential_fields: [] })).toEqual(['authorize'])
    expect(connectMethodsOf({})).toEqual(['authorize'])
  })

  it('ignores credentials without fields to paste, and unknown methods', () => {
    expect(
      connectMethodsOf({ connect_methods: ['authorize', 'credentials'], credential_fields: [] }),
    ).toEqual(['authorize'])
    expect(connectMethodsOf({ connect_methods: ['magic'] })).toEqual(['authorize'])
    expect(connectMethodsOf({ connect_methods: ['credentials'], credential_fields: fields })).toEqual([
      'credentials',
    ])
  })
})

describe('isPlausibleKey and credentialHelpQuery', () => {
  it('accepts 32 hexadecimal characters in either case, ignoring spaces around a paste', () => {
    expect(isPlausibleKey(KEY)).toBe(true)
    expect(isPlausibleKey(KEY.toUpperCase())).toBe(true)
    expect(isPlausibleKey(` ${KEY}\n`)).toBe(true)
  })

  it('refuses partial, longer or non-hexadecimal keys', () => {
    for (const v of [
      '',
      undefined,
      KEY.slice(0, 31),
      `${KEY}0`,
      `${KEY.slice(0, 31)}g`,
      'fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210',
    ])
      expect(isPlausibleKey(v), String(v)).toBe(false)
  })

  it('asks only once the key is plausible, and sends only the key', () => {
    expect(credentialHelpQuery({ key: KEY.slice(0, 10), token: '' })).toBeNull()
    expect(credentialHelpQuery({ token: 'a'.repeat(64) })).toBeNull()
    const query = credentialHelpQuery({ key: ` ${KEY} `, token: 'a'.repeat(64) })
    expect(query).toBe(`key=${KEY}`)
    expect(query).not.toContain('token')
  })
})

describe('emptyCredentials and credentialsToSend', () => {
  it('starts every field empty', () => {
    expect(emptyCredentials(fields)).toEqual({ key: '', token: '' })
  })

  it('sends only the platform fields, trimmed', () => {
    expect(credentialsToSend(fields, { key: ` ${KEY}\n`, token: 'abc\n', extra: 'x' })).toEqual({
      key: KEY,
      token: 'abc',
    })
    expect(credentialsToSend(fields, {})).toEqual({ key: '', token: '' })
  })
})

describe('safeHttpUrl', () => {
  it('keeps http(s) addresses and refuses other schemes and junk', () => {
    expect(safeHttpUrl(TOKEN_PAGE)).toBe(TOKEN_PAGE)
    expect(safeHttpUrl('https://trello.com/1/authorize?key=abc')).toBe(
      'https://trello.com/1/authorize?key=abc',
    )
    expect(safeHttpUrl('javascript:alert(1)')).toBeNull()
    expect(safeHttpUrl('data:text/html,hi')).toBeNull()
    expect(safeHttpUrl('/relative')).toBeNull()
    expect(safeHttpUrl(null)).toBeNull()
    expect(safeHttpUrl('')).toBeNull()
  })
})

describe('splitLinks', () => {
  const join = (parts: { text: string }[]) => parts.map((p) => p.text).join('')

  it('finds the token page in the app-secret message', () => {
    const detail = `The value pasted as the token is your app's secret, not a token. Create a token at ${TOKEN_PAGE} and paste that instead.`
    const parts = splitLinks(detail)
    expect(parts).toEqual([
      { text: "The value pasted as the token is your app's secret, not a token. Create a token at " },
      { text: TOKEN_PAGE, url: TOKEN_PAGE },
      { text: ' and paste that instead.' },
    ])
    expect(join(parts)).toBe(detail)
  })

  it('leaves sentence punctuation and unbalanced brackets outside the address', () => {
    expect(splitLinks('Go to https://example.com/a?b=c.')).toEqual([
      { text: 'Go to ' },
      { text: 'https://example.com/a?b=c', url: 'https://example.com/a?b=c' },
      { text: '.' },
    ])
    expect(splitLinks('(see https://example.com/x), then retry')).toEqual([
      { text: '(see ' },
      { text: 'https://example.com/x', url: 'https://example.com/x' },
      { text: '), then retry' },
    ])
    const wiki = 'https://en.wikipedia.org/wiki/Trello_(software)'
    expect(splitLinks(`Read ${wiki}!`)).toEqual([{ text: 'Read ' }, { text: wiki, url: wiki }, { text: '!' }])
  })

  it('finds several addresses and keeps text without any as one part', () => {
    const parts = splitLinks('a http://x.test/1 b https://y.test/2')
    expect(parts.filter((p) => 'url' in p).map((p) => p.text)).toEqual([
      'http://x.test/1',
      'https://y.test/2',
    ])
    expect(splitLinks('no address here')).toEqual([{ text: 'no address here' }])
    expect(splitLinks('')).toEqual([])
  })

  it('links only http(s) addresses', () => {
    expect(splitLinks('javascript:alert(1) ftp://x.test https://')).toEqual([
      { text: 'javascript:alert(1) ftp://x.test https://' },
    ])
  })
})
