import { describe, expect, it } from 'vitest'
import { groupFieldErrors, topLevelField } from './field-errors.ts'

describe('groupFieldErrors', () => {
  it('puts each error next to the field it names', () => {
    const grouped = groupFieldErrors(
      [
        { field: 'fields.subdomain', message: 'Use only the subdomain' },
        { field: 'fields.subdomain', message: 'Too long' },
        { field: 'platform', message: 'Unknown platform' },
      ],
      'fields',
      ['subdomain'],
    )
    expect(grouped.byField).toEqual({ subdomain: ['Use only the subdomain', 'Too long'] })
    expect(grouped.other).toEqual([{ field: 'platform', message: 'Unknown platform' }])
  })

  it('maps nested paths to their top-level field and keeps unknown fields apart', () => {
    const grouped = groupFieldErrors(
      [
        { field: 'input.tags.0', message: 'Expected string' },
        { field: 'input.via[channel]', message: 'Required' },
        { field: 'input', message: 'Unrecognized key: "x"' },
        { field: 'input.nope', message: 'Unrecognized' },
      ],
      'input.',
      ['tags', 'via'],
    )
    expect(grouped.byField).toEqual({ tags: ['Expected string'], via: ['Required'] })
    expect(grouped.other.map((e) => e.field)).toEqual(['input', 'input.nope'])
  })

  it('accepts bare field paths with an empty prefix', () => {
    expect(groupFieldErrors([{ field: 'name', message: 'Required' }], '', ['name']).byField).toEqual({
      name: ['Required'],
    })
  })

  it('copes with no errors', () => {
    expect(groupFieldErrors(undefined, 'input', ['a'])).toEqual({ byField: {}, other: [] })
  })

  it('does not confuse a prefix with a longer member name', () => {
    expect(topLevelField('inputs.a', 'input')).toBeUndefined()
    expect(topLevelField('input.a', 'input')).toBe('a')
  })

  it('places pasted-credential errors next to the key and token fields', () => {
    const grouped = groupFieldErrors(
      [
        { field: 'credentials.key', message: 'an API key is 32 hexadecimal characters' },
        { field: 'credentials.token', message: 'a token is 64 hexadecimal characters, or starts with ATTA' },
        { field: 'credentials', message: 'give the credentials' },
      ],
      'credentials',
      ['key', 'token'],
    )
    expect(grouped.byField).toEqual({
      key: ['an API key is 32 hexadecimal characters'],
      token: ['a token is 64 hexadecimal characters, or starts with ATTA'],
    })
    expect(grouped.other).toEqual([{ field: 'credentials', message: 'give the credentials' }])
  })
})
