import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { client } from './helpers/stack.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'

// Issue 22, §7: every list is paged with cursors as runs are, searched by the server, and a cursor
// never shows anyone else's rows. Rows are written straight into the tables (many at one instant,
// so ties on created_at are paged by id) so the test spends its time on the paging it checks.
const LISTS = ['agents', 'integrations', 'subscriptions'] as const
type List = (typeof LISTS)[number]

let stack: TestStack
let a: { id: string; apiKey: string }
let b: { id: string; apiKey: string }
let seq = 0

/** `n` rows of each list for `userId`, named `<word> <i>`; returns the ids per list. */
async function seed(userId: string, word: string, n: number): Promise<Record<List, string[]>> {
  const db = stack.services.store.db
  const tag = `${word.replace(/\W/g, '')}${++seq}`
  await sql`insert into integrations (id, user_id, platform, external_id, account_name, status)
    select ${tag} || '_int_' || i, ${userId}, 'trello', ${tag} || i, ${word} || ' account ' || i, 'active'
    from generate_series(1, ${n}::int) i`.execute(db)
  await sql`insert into agents (id, user_id, name, current_version)
    select ${tag} || '_agt_' || i, ${userId}, ${word} || ' ' || i, 1 from generate_series(1, ${n}::int) i`.execute(
    db,
  )
  await sql`insert into agent_versions (agent_id, version, definition)
    select ${tag} || '_agt_' || i, 1, jsonb_build_object('name', ${word} || ' ' || i, 'description', '',
      'kind', 'external', 'inputs', '[]'::jsonb, 'steps', '[]'::jsonb)
    from generate_series(1, ${n}::int) i`.execute(db)
  await sql`insert into subscriptions (id, user_id, agent_id, trigger_id, integration_id, config, mapping, status)
    select ${tag} || '_sub_' || i, ${userId}, ${tag} || '_agt_' || i, 'trello.card_created',
      ${tag} || '_int_' || i, '{}'::jsonb, '{}'::jsonb, 'inactive'
    from generate_series(1, ${n}::int) i`.execute(db)
  const ids = (kind: string) => Array.from({ length: n }, (_, i) => `${tag}_${kind}_${i + 1}`)
  return { agents: ids('agt'), integrations: ids('int'), subscriptions: ids('sub') }
}

async function pageThrough(
  apiKey: string,
  list: List,
  limit: number,
  between: () => Promise<unknown> = async () => {},
  extra = '',
): Promise<string[]> {
  const api = client(stack, apiKey)
  const seen: string[] = []
  let cursor: string | null = null
  for (let pages = 0; pages < 1_000; pages++) {
    const res = await api.get(
      `/v1/${list}?limit=${limit}${extra}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    )
    expect(res.status, res.text).toBe(200)
    expect(res.body[list].length).toBeLessThanOrEqual(limit)
    seen.push(...res.body[list].map((r: { id: string }) => r.id))
    cursor = res.body.next_cursor
    if (!cursor) return seen
    await between()
  }
  throw new Error('paging did not end')
}

let mine: Record<List, string[]>
let theirs: Record<List, string[]>

beforeAll(async () => {
  stack = await startTestStack({ databaseUrl: process.env.TEST_DATABASE_URL })
  a = await stack.createUser()
  b = await stack.createUser()
  mine = await seed(a.id, 'alpha', 23)
  theirs = await seed(b.id, 'beta', 5)
}, 60_000)
afterAll(async () => stack?.close())

describe.each(LISTS)('GET /v1/%s is paged', (list) => {
  it('pages through every row once, in a stable order, and ends with a null cursor', async () => {
    const seen = await pageThrough(a.apiKey, list, 4)
    expect(new Set(seen).size).toBe(seen.length)
    expect(seen.filter((id) => mine[list].includes(id)).sort()).toEqual([...mine[list]].sort())
    // One large page holds them all at once, in the same order; the default page is 50.
    const whole = await client(stack, a.apiKey).get(`/v1/${list}?limit=200`)
    expect(whole.body[list].map((r: { id: string }) => r.id)).toEqual(seen)
    expect(whole.body.next_cursor).toBeNull()
    const first = await client(stack, a.apiKey).get(`/v1/${list}`)
    expect(first.body[list].map((r: { id: string }) => r.id)).toEqual(seen.slice(0, 50))
  })

  it("never shows another user's rows, whatever the cursor", async () => {
    const seen = await pageThrough(b.apiKey, list, 2)
    expect(seen.sort()).toEqual([...theirs[list]].sort())
    expect(seen.some((id) => mine[list].includes(id))).toBe(false)
  })

  it('loses nothing and repeats nothing while rows are added between pages', async () => {
    const before = await pageThrough(a.apiKey, list, 200)
    let round = 0
    const added: string[] = []
    const seen = await pageThrough(a.apiKey, list, 3, async () => {
      added.push(...(await seed(a.id, `added ${list} ${round++}`, 2))[list])
    })
    expect(new Set(seen).size).toBe(seen.length)
    for (const id of before) expect(seen).toContain(id)
    expect(added.length).toBeGreaterThan(0)
  })

  it('finds rows by words of their name, ignoring case, on the server', async () => {
    const api = client(stack, a.apiKey)
    const found = await api.get(`/v1/${list}?q=${encodeURIComponent('ALPHA 1')}&limit=200`)
    expect(found.status, found.text).toBe(200)
    const ids = found.body[list].map((r: { id: string }) => r.id) as string[]
    // "alpha 1", "alpha 10"…"alpha 19", "alpha 21": every word found somewhere in the name, as the
    // web app's search boxes match.
    expect(ids.length).toBe(12)
    expect(ids.every((id) => mine[list].includes(id))).toBe(true)
    // `%` is a letter to search for, not a pattern.
    expect((await api.get(`/v1/${list}?q=%25`)).body[list]).toEqual([])
    // Another user's names are never found; unicode searches plainly.
    expect((await api.get(`/v1/${list}?q=beta`)).body[list]).toEqual([])
    const unicode = await api.get(`/v1/${list}?q=${encodeURIComponent('日本 ü')}`)
    expect(unicode.status, unicode.text).toBe(200)
    expect(unicode.body[list]).toEqual([])
    // A lone surrogate cannot travel in a URL: its bytes (as CESU-8) arrive as replacement characters.
    const surrogate = await api.get(`/v1/${list}?q=%ED%A0%80`)
    expect(surrogate.status, surrogate.text).toBe(200)
    expect(surrogate.body[list]).toEqual([])
  })
})

describe.each(LISTS)('GET /v1/%s refuses hostile cursors, limits and searches by name', (list) => {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
  const realCursor = async (apiKey: string, of: List = list) =>
    (await client(stack, apiKey).get(`/v1/${of}?limit=1`)).body.next_cursor as string
  const tamper = (cursor: string, change: (parts: string[]) => string[]) =>
    b64(change(JSON.parse(Buffer.from(cursor, 'base64url').toString())))

  const cases: Array<[string, string, () => Promise<string>]> = [
    ['garbage cursor', 'cursor', async () => 'cursor=not%20a%20cursor!!'],
    ['empty JSON cursor', 'cursor', async () => `cursor=${b64({})}`],
    ['a cursor of numbers', 'cursor', async () => `cursor=${b64([1, 2, 3])}`],
    ['a run cursor from before the check', 'cursor', async () => `cursor=${b64(['1700000000000000', 'x'])}`],
    [
      'tampered id',
      'cursor',
      async () => `cursor=${tamper(await realCursor(a.apiKey), ([t, , c]) => [t!, 'zzz', c!])}`,
    ],
    [
      'tampered time',
      'cursor',
      async () => `cursor=${tamper(await realCursor(a.apiKey), ([, id, c]) => ['1', id!, c!])}`,
    ],
    ["another user's cursor", 'cursor', async () => `cursor=${await realCursor(b.apiKey)}`],
    [
      "another list's cursor",
      'cursor',
      async () => `cursor=${await realCursor(a.apiKey, list === 'agents' ? 'integrations' : 'agents')}`,
    ],
    ['an overlong cursor', 'cursor', async () => `cursor=${'A'.repeat(401)}`],
    ['two cursors', 'cursor', async () => `cursor=a&cursor=b`],
    ['negative limit', 'limit', async () => 'limit=-1'],
    ['zero limit', 'limit', async () => 'limit=0'],
    ['huge limit', 'limit', async () => 'limit=1000000000000'],
    ['limit over the maximum', 'limit', async () => 'limit=201'],
    ['fractional limit', 'limit', async () => 'limit=1.5'],
    ['word for a limit', 'limit', async () => 'limit=ten'],
    ['NUL in q', 'q', async () => 'q=a%00b'],
    ['overlong q', 'q', async () => `q=${'x'.repeat(201)}`],
    ['two searches', 'q', async () => 'q=a&q=b'],
  ]

  it.each(cases)('%s answers 400 naming %s', async (_name, field, query) => {
    const res = await client(stack, a.apiKey).get(`/v1/${list}?${await query()}`)
    expect(res.status, res.text).toBe(400)
    expect(res.body.code).toBe('invalid_input')
    expect(res.body.errors.map((e: { field: string }) => e.field).join(' ')).toMatch(
      new RegExp(`\\b${field}\\b`),
    )
  })
})

describe('GET /v1/agents/{id}/subscriptions (the Triggers tab) is paged', () => {
  /** One agent of `a` with `n` triggers, and another agent with one. */
  async function agentWithTriggers(n: number): Promise<{ agent: string; subs: string[]; other: string }> {
    const db = stack.services.store.db
    const tag = `tab${++seq}`
    await sql`insert into integrations (id, user_id, platform, external_id, account_name, status)
      values (${`${tag}_int`}, ${a.id}, 'trello', ${tag}, 'tab account', 'active')`.execute(db)
    await sql`insert into agents (id, user_id, name, current_version)
      values (${`${tag}_agt`}, ${a.id}, ${`${tag} agent`}, 1), (${`${tag}_oth`}, ${a.id}, ${`${tag} other`}, 1)`.execute(
      db,
    )
    await sql`insert into agent_versions (agent_id, version, definition)
      select id, 1, jsonb_build_object('name', name, 'description', '', 'kind', 'external', 'inputs', '[]'::jsonb, 'steps', '[]'::jsonb)
      from agents where id in (${`${tag}_agt`}, ${`${tag}_oth`})`.execute(db)
    await sql`insert into subscriptions (id, user_id, agent_id, trigger_id, integration_id, config, mapping, status)
      select ${tag} || '_sub_' || i, ${a.id}, case when i = 0 then ${`${tag}_oth`} else ${`${tag}_agt`} end,
        'trello.new_card', ${`${tag}_int`}, '{}'::jsonb, '{}'::jsonb, 'inactive'
      from generate_series(0, ${n}::int) i`.execute(db)
    return {
      agent: `${tag}_agt`,
      other: `${tag}_oth`,
      subs: Array.from({ length: n }, (_, i) => `${tag}_sub_${i + 1}`),
    }
  }

  it("pages through the agent's triggers once each, and only its own", async () => {
    const { agent, subs } = await agentWithTriggers(7)
    const api = client(stack, a.apiKey)
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const res = await api.get(
        `/v1/agents/${agent}/subscriptions?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      )
      expect(res.status, res.text).toBe(200)
      expect(res.body.subscriptions.length).toBeLessThanOrEqual(3)
      seen.push(...res.body.subscriptions.map((s: { id: string }) => s.id))
      cursor = res.body.next_cursor
    } while (cursor && seen.length < 100)
    expect(seen).toEqual(subs.sort())
    // The same rows as GET /v1/subscriptions?agent_id=, whose cursors it shares.
    const whole = await api.get(`/v1/subscriptions?agent_id=${agent}&limit=3`)
    expect(whole.body.subscriptions.map((s: { id: string }) => s.id)).toEqual(seen.slice(0, 3))
    const next = await api.get(
      `/v1/agents/${agent}/subscriptions?limit=3&cursor=${encodeURIComponent(whole.body.next_cursor)}`,
    )
    expect(next.body.subscriptions.map((s: { id: string }) => s.id)).toEqual(seen.slice(3, 6))
  })

  it("refuses a cursor from another agent's list or from the whole list, naming cursor", async () => {
    const { agent, other } = await agentWithTriggers(3)
    const api = client(stack, a.apiKey)
    const fromWhole = (await api.get('/v1/subscriptions?limit=1')).body.next_cursor
    const fromOther = (await api.get(`/v1/agents/${agent}/subscriptions?limit=1`)).body.next_cursor
    for (const [path, cursor] of [
      [`/v1/agents/${agent}/subscriptions`, fromWhole],
      [`/v1/agents/${other}/subscriptions`, fromOther],
    ]) {
      const res = await api.get(`${path}?cursor=${encodeURIComponent(cursor)}`)
      expect(res.status, res.text).toBe(400)
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['cursor'])
    }
    for (const bad of ['limit=0', 'limit=201', 'limit=ten', 'q=a%00b']) {
      const res = await api.get(`/v1/agents/${agent}/subscriptions?${bad}`)
      expect(res.status, `${bad}: ${res.text}`).toBe(400)
      expect(res.body.errors[0].field).toMatch(new RegExp(`\\b${bad.split('=')[0]}$`))
    }
    // Another user's agent is not found, whatever the page asked for.
    expect((await client(stack, b.apiKey).get(`/v1/agents/${agent}/subscriptions?limit=1`)).status).toBe(404)
  })
})

describe("the web app's integration pickers", () => {
  it("GET /v1/integrations?platform= answers one platform's integrations, a short page at a time", async () => {
    const db = stack.services.store.db
    await sql`insert into integrations (id, user_id, platform, external_id, account_name, status)
      values ('picker_zd_1', ${a.id}, 'zendesk', 'picker-zd-1', 'alpha desk', 'active')`.execute(db)
    const api = client(stack, a.apiKey)
    const zendesk = await api.get('/v1/integrations?platform=zendesk&limit=20')
    expect(zendesk.status, zendesk.text).toBe(200)
    expect(zendesk.body.integrations.map((i: { id: string }) => i.id)).toEqual(['picker_zd_1'])
    expect(zendesk.body.next_cursor).toBeNull()
    const trello = await api.get('/v1/integrations?platform=trello&limit=20')
    expect(trello.body.integrations).toHaveLength(20)
    expect(trello.body.integrations.every((i: { platform: string }) => i.platform === 'trello')).toBe(true)
    expect(trello.body.next_cursor).not.toBeNull()
    const searched = await api.get('/v1/integrations?platform=trello&q=account%2023&limit=20')
    const found = searched.body.integrations as Array<{ id: string; platform: string }>
    expect(found.map((i) => i.id)).toContain(mine.integrations[22])
    expect(found.every((i) => i.platform === 'trello')).toBe(true)
    const tooLong = await api.get(`/v1/integrations?platform=${'x'.repeat(51)}`)
    expect(tooLong.status).toBe(400)
    expect(tooLong.body.errors[0].field).toBe('platform')
  })
})
