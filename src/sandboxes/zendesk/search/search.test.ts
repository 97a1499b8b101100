import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AGENT, bearer, call, startTestSandbox, type TestSandbox } from '../test-support.ts'
import { parseQuery, tokenize } from './parser.ts'

/** Seeded acme tickets (see seed.ts and docs/sandbox.md); the caller is Alan Agent. */
let sandbox: TestSandbox
let acme: string
let auth: string

beforeAll(async () => {
  sandbox = await startTestSandbox()
  acme = sandbox.base('acme')
  auth = bearer(await sandbox.token('acme', AGENT))
})
afterAll(() => sandbox.close())

async function search(query: string, extra = '') {
  return call(`${acme}/api/v2/search.json?query=${encodeURIComponent(query)}${extra}`, { auth })
}

async function ticketIds(query: string): Promise<number[]> {
  const response = await search(query)
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  const results = response.body.results as Array<{ id: number; result_type: string }>
  expect(results.every((r) => r.result_type === 'ticket')).toBe(true)
  return results.map((r) => r.id).sort((a, b) => a - b)
}

describe('ticket search grammar', () => {
  it.each([
    ['type:ticket', [1, 2, 3, 4, 5, 6]],
    // free text over subject, description and comments (private ones included)
    ['printer', [1]],
    ['"smoke is very colorful"', [1]],
    ['"colorful smoke"', []],
    ['extinguisher', [1]],
    ['portal', [2, 6]],
    ['lap*', [4]],
    ['-portal type:ticket', [1, 3, 4, 5]],
    ['-printer -portal type:ticket', [3, 4, 5]],
    // `type:` is a result type or, for ticket types, the ticket's type; `ticket_type:` is explicit
    ['type:incident', [1]],
    ['ticket_type:question', [2, 6]],
    ['type:ticket -type:question', [1, 3, 4, 5]],
    ['ticket_type:none', [5]],
    // status with the order new < open < pending < hold < solved < closed
    ['status:open', [1]],
    ['status<solved', [1, 2, 3, 6]],
    ['status>pending', [4, 5, 6]],
    ['status<=pending', [1, 2, 3]],
    ['status>=solved', [4, 5]],
    ['-status:closed type:ticket', [1, 2, 3, 4, 6]],
    // priority with low < normal < high < urgent; tickets without priority never compare
    ['priority:urgent', [1]],
    ['priority>normal', [1, 3]],
    ['priority<high', [2, 4, 6]],
    ['priority:none', [5]],
    // people
    ['assignee:me', [1, 4, 5]],
    ['assignee:none', [2]],
    ['assignee:admin@acme.test', [3, 6]],
    ['assignee:1001', [3, 6]],
    ['assignee:"Ada Admin"', [3, 6]],
    ['-assignee:me type:ticket', [2, 3, 6]],
    ['requester:customer@acme.test', [1, 2, 5, 6]],
    ['requester:erin@umbrella.test', [3, 4]],
    ['requester:me', []],
    ['organization:initech type:ticket', [1, 2, 5, 6]],
    // tags
    ['tags:hardware', [1, 4]],
    ['tag:portal', [2, 6]],
    ['tags:"billing shipping"', [3, 5]],
    ['tags:hardware -tags:laptop', [1]],
    // dates (UTC days) and datetimes
    ['created:2024-02-01 type:ticket', [2]],
    ['created>2024-02-15 type:ticket', [4, 6]],
    ['created>=2024-02-15 type:ticket', [3, 4, 6]],
    ['created<2024-01-10 type:ticket', [5]],
    ['created<=2024-01-10 type:ticket', [1, 5]],
    ['updated>2024-03-01 type:ticket', [4, 6]],
    ['created>2024-01-10T09:30:00Z type:ticket', [2, 3, 4, 6]],
    ['-created:2024-02-01 type:ticket', [1, 3, 4, 5, 6]],
    // field-scoped text
    ['subject:portal', [2]],
    ['description:portal', [6]],
    ['comment:extinguisher', [1]],
    // combinations
    ['status<solved priority>=normal assignee:1001', [3, 6]],
    ['type:incident status:open printer', [1]],
    ['hardware status:solved', []],
    ['tags:hardware status:solved', [4]],
  ])('%s', async (query, expected) => {
    expect(await ticketIds(query)).toEqual(expected)
  })
})

describe('users and organizations', () => {
  it('searches users and organizations, tagging result_type', async () => {
    const users = await search('type:user role:end-user')
    expect(users.body.results.map((r: { name: string }) => r.name).sort()).toEqual([
      'Carla Customer',
      'Erin Enduser',
    ])
    expect(users.body.results.every((r: { result_type: string }) => r.result_type === 'user')).toBe(true)
    const orgs = await search('type:organization initech')
    expect(orgs.body.results).toEqual([
      expect.objectContaining({ name: 'Initech', result_type: 'organization' }),
    ])
    const mixed = await search('umbrella')
    expect(
      mixed.body.results
        .map((r: { result_type: string; name: string }) => `${r.result_type}:${r.name}`)
        .sort(),
    ).toEqual(['organization:Umbrella Corp', 'user:Erin Enduser'])
  })
})

describe('response, sorting and pagination', () => {
  it('has the SearchResponse shape', async () => {
    const response = await search('type:ticket')
    expect(response.body).toMatchObject({ count: 6, facets: null, next_page: null, previous_page: null })
    expect(response.body.results[0].url).toContain(`${acme}/api/v2/tickets/`)
  })

  it('sorts by sort_by and sort_order', async () => {
    const byCreated = await search('type:ticket', '&sort_by=created_at&sort_order=asc')
    expect(byCreated.body.results.map((r: { id: number }) => r.id)).toEqual([5, 1, 2, 3, 4, 6])
    const byPriority = await search('type:ticket', '&sort_by=priority')
    expect(byPriority.body.results.slice(0, 2).map((r: { id: number }) => r.id)).toEqual([1, 3])
    const byStatus = await search('type:ticket', '&sort_by=status&sort_order=asc')
    expect(byStatus.body.results.map((r: { status: string }) => r.status)).toEqual([
      'new',
      'open',
      'pending',
      'hold',
      'solved',
      'closed',
    ])
  })

  it('pages with per_page and next_page', async () => {
    const ids: number[] = []
    let url: string | null = `${acme}/api/v2/search.json?query=type:ticket&per_page=4`
    while (url) {
      const page = await call(url, { auth })
      expect(page.body.count).toBe(6)
      ids.push(...page.body.results.map((r: { id: number }) => r.id))
      url = page.body.next_page
    }
    expect(ids.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6])
  })

  it('refuses cursor pagination and results past 1,000', async () => {
    const cursor = await search('type:ticket', '&page[size]=2')
    expect(cursor.status).toBe(400)
    expect(cursor.body).toEqual({ error: 'invalid', description: 'page must be an integer' })
    const deep = await search('type:ticket', '&page=11&per_page=100')
    expect(deep.status).toBe(422)
    expect((await search('type:ticket', '&page=10&per_page=100')).status).toBe(200)
  })

  it('counts with /search/count', async () => {
    const response = await call(
      `${acme}/api/v2/search/count.json?query=${encodeURIComponent('status<solved')}`,
      { auth },
    )
    expect(response.body).toEqual({ count: 4 })
  })

  it.each([
    'status<foo',
    'status:',
    '"unbalanced',
    'created>someday',
    'tags<foo',
    'type:banana',
    'priority>none',
    '   ',
  ])('answers 400 invalid for %j', async (query) => {
    const response = await search(query)
    expect(response.status).toBe(400)
    expect(response.body).toEqual({ error: 'invalid', description: expect.any(String) })
  })
})

describe('parser', () => {
  it('tokenizes quotes that open mid-token', () => {
    expect(tokenize('subject:"two words" -tag:x  "a b"')).toEqual(['subject:"two words"', '-tag:x', '"a b"'])
  })

  it('reads relative times against now', () => {
    const now = Date.parse('2024-05-01T12:00:00Z')
    const parsed = parseQuery('created>4hours', now)
    expect(parsed).toEqual({
      ok: true,
      terms: [
        {
          kind: 'time',
          negated: false,
          field: 'created',
          op: '>',
          range: { start: now - 4 * 3_600_000, end: now - 4 * 3_600_000 },
        },
      ],
    })
  })

  it('treats unknown properties as free text', () => {
    const parsed = parseQuery('https://example.com', 0)
    expect(parsed.ok && parsed.terms[0]?.kind).toBe('text')
  })
})
