import { describe, expect, it } from 'vitest'
import { AppError } from '../errors.ts'
import { parseEndpoint, pinnedUrl } from './endpoint.ts'

const PREFIX = '/api/v2/'

describe('API Call endpoint parsing', () => {
  it.each([
    '/api/v2/tickets.json',
    '/api/v2/tickets/1.json',
    '/api/v2/search.json?query=status:open assignee:me@example.com',
    '/api/v2/users/me',
    '/api/v2/tickets.json?page[size]=10',
  ])('accepts %s', (endpoint) => {
    const parsed = parseEndpoint(endpoint, PREFIX)
    const url = pinnedUrl('https://acme.zendesk.com', PREFIX, parsed.path, parsed.query)
    expect(url.origin).toBe('https://acme.zendesk.com')
    expect(url.pathname.startsWith('/api/v2/')).toBe(true)
  })

  it('keeps the account path of a sandbox base URL', () => {
    const parsed = parseEndpoint('/api/v2/tickets.json', PREFIX)
    expect(pinnedUrl('http://127.0.0.1:4010/zendesk/acme', PREFIX, parsed.path, parsed.query).pathname).toBe(
      '/zendesk/acme/api/v2/tickets.json',
    )
  })

  it('refuses with a field-named error', () => {
    try {
      parseEndpoint('/api/v2/../admin', PREFIX)
      expect.unreachable()
    } catch (err) {
      expect(err).toBeInstanceOf(AppError)
      expect((err as AppError).extras.errors?.[0].field).toBe('endpoint')
    }
  })
})
