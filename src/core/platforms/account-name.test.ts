import { describe, expect, it } from 'vitest'
import { accountName } from './account-name.ts'

describe('one account-name pattern for every platform: name, then the handle in parentheses', () => {
  it.each([
    ['Ada Admin', 'acme', 'Ada Admin (acme)'],
    ['Ada Lovelace', 'ada', 'Ada Lovelace (ada)'],
    ['  Acme Inc ', 'acme', 'Acme Inc (acme)'],
    ['', 'ada', 'ada'],
    [null, 'ada', 'ada'],
    [undefined, 'acme', 'acme'],
    ['ada', 'ada', 'ada'],
  ])('%j with handle %j reads %j', (name, handle, expected) => {
    expect(accountName(name, handle)).toBe(expected)
  })
})
