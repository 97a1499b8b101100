import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectZendesk } from './helpers/connect.ts'
import { client, zendeskControl } from './helpers/stack.ts'
import { connectTrelloWithToken, TRELLO, trelloControl } from './helpers/trello.ts'
import { connectVercel, VERCEL, vercelControl } from './helpers/vercel.ts'

// Every declared options source against the sandboxes over real HTTP, through
// GET /v1/tools/{id}/options/{field}: what a picker shows is what the connected account holds.
let stack: TestStack
const ids = { trello: '', zendesk: '', vercel: '' }
let api: ReturnType<typeof client>

beforeAll(async () => {
  stack = await startTestStack()
  api = client(stack, stack.apiKey)
  ids.trello = await connectTrelloWithToken(stack)
  ids.zendesk = (await connectZendesk(stack)).integrationId!
  ids.vercel = (await connectVercel(stack)).integrationId!
})
afterAll(async () => {
  await stack?.close()
})

type Option = { value: string | number; label: string; description?: string }

async function options(
  tool: string,
  field: string,
  params: Record<string, string> = {},
  platform: keyof typeof ids = tool.split('.')[0] as keyof typeof ids,
) {
  const query = new URLSearchParams({ integration: ids[platform], ...params })
  return api.get(`/v1/tools/${tool}/options/${field}?${query}`)
}

/** Answers the options of one page, expecting success. */
async function page(
  tool: string,
  field: string,
  params: Record<string, string> = {},
): Promise<{ options: Option[]; next_cursor: string | null }> {
  const res = await options(tool, field, params)
  expect(res.status, res.text).toBe(200)
  return res.body
}

/** Follows next_cursor to the end. */
async function all(tool: string, field: string, params: Record<string, string> = {}): Promise<Option[]> {
  const seen: Option[] = []
  let cursor: string | null = null
  for (let pages = 0; pages < 50; pages++) {
    const body = await page(tool, field, { ...params, ...(cursor ? { cursor } : {}) })
    seen.push(...body.options)
    cursor = body.next_cursor
    if (!cursor) return seen
  }
  throw new Error('options never ended')
}

const labels = (options: Option[]) => options.map((o) => o.label)
const values = (options: Option[]) => options.map((o) => o.value)

describe('the catalogue says which fields have options', () => {
  it('lists the fields with options and what each depends on', async () => {
    const { body } = await api.get('/v1/tools/trello.create_card')
    expect(body.fieldOptions).toEqual({ list_id: { dependsOn: [] }, label_ids: { dependsOn: ['list_id'] } })
    const update = (await api.get('/v1/tools/zendesk.update_ticket')).body
    expect(update.fieldOptions).toEqual({ ticket_id: { dependsOn: [] }, assignee: { dependsOn: [] } })
    const listed = (await api.get('/v1/tools')).body.tools.find((t: any) => t.id === 'zendesk.create_ticket')
    expect(listed.fieldOptions).toEqual({ assignee: { dependsOn: [] } })
  })
})

describe('Trello options', () => {
  let sandboxToken: string
  const trello = async (method: string, path: string) => {
    const res = await fetch(`${stack.sandboxUrl}/trello/1${path}`, {
      method,
      headers: {
        authorization: `OAuth oauth_consumer_key="${TRELLO.app.key}", oauth_token="${sandboxToken}"`,
      },
    })
    expect(res.status, path).toBe(200)
    return res.json()
  }
  beforeAll(async () => {
    sandboxToken = await trelloControl(stack).mintToken()
  })

  it('Create Card offers every open list as "Board / List", and q narrows them', async () => {
    const lists = await all('trello.create_card', 'list_id')
    expect(lists).toEqual(
      expect.arrayContaining([
        { value: TRELLO.lists.todo.id, label: 'Roadmap / To Do' },
        { value: TRELLO.lists.doing.id, label: 'Roadmap / Doing' },
      ]),
    )
    expect(labels((await page('trello.create_card', 'list_id', { q: 'roadmap do' })).options)).toEqual([
      'Roadmap / To Do',
      'Roadmap / Doing',
      'Roadmap / Done',
    ])
    expect(labels((await page('trello.create_card', 'list_id', { q: 'doing' })).options)).toEqual([
      'Roadmap / Doing',
    ])
    expect((await page('trello.create_card', 'list_id', { q: 'no such list anywhere' })).options).toEqual([])
  })

  it('pages a board with more lists than a page holds, with nothing lost or repeated', async () => {
    const board = await trello('POST', `/boards?name=${encodeURIComponent('Many lists')}&defaultLists=false`)
    for (let i = 0; i < 60; i++)
      await trello('POST', `/lists?name=${encodeURIComponent(`Lane ${i}`)}&idBoard=${board.id}&pos=bottom`)
    await page('trello.get_list_cards', 'list_id') // the picker opens: a fresh listing, which the search below reuses
    const first = await page('trello.get_list_cards', 'list_id', { q: 'many lists' })
    expect(first.options).toHaveLength(50)
    expect(first.next_cursor).toBeTruthy()
    const lanes = await all('trello.get_list_cards', 'list_id', { q: 'many lists' })
    expect(lanes).toHaveLength(60)
    expect(new Set(values(lanes)).size).toBe(60)
  })

  it('typing in a picker reuses the listing fetched when it opened: Trello is asked once, not per keystroke', async () => {
    const control = trelloControl(stack)
    await control.clearRequests()
    expect(labels(await all('trello.get_card', 'card_id'))).toContain('Roadmap / Design the API')
    const opened = (await control.requests()).length
    expect(opened).toBeGreaterThan(1) // the boards, then each board's cards
    for (const q of ['d', 'de', 'design', 'design api'])
      expect(labels(await all('trello.get_card', 'card_id', { q }))).toContain('Roadmap / Design the API')
    expect((await control.requests()).length).toBe(opened)
    // Opening the picker again fetches afresh: a card made since is there.
    const card = await trello(
      'POST',
      `/cards?idList=${TRELLO.lists.todo.id}&name=${encodeURIComponent('Made just now')}`,
    )
    await control.clearRequests()
    expect(values(await all('trello.get_card', 'card_id'))).toContain(card.id)
    expect((await control.requests()).length).toBe(opened)
  })

  it("Create List offers the member's open boards", async () => {
    const boards = await all('trello.create_list', 'board_id')
    expect(boards).toContainEqual({ value: TRELLO.board.id, label: 'Roadmap' })
  })

  it('cards are offered as "Board / Card" with their list, for every step that takes a card', async () => {
    for (const tool of [
      'trello.get_card',
      'trello.update_card',
      'trello.archive_card',
      'trello.add_checklist',
      'trello.add_comment_to_card',
    ]) {
      const cards = await all(tool, 'card_id', { q: 'api' })
      expect(cards, tool).toContainEqual({
        value: TRELLO.cards.api.id,
        label: 'Roadmap / Design the API',
        description: expect.any(String),
      })
    }
  })

  it("labels of Create Card follow the chosen list's board", async () => {
    const labelsOfRoadmap = await all('trello.create_card', 'label_ids', { list_id: TRELLO.lists.todo.id })
    expect(labelsOfRoadmap).toEqual(
      expect.arrayContaining([
        { value: TRELLO.labels.bug.id, label: 'Bug', description: 'red' },
        { value: TRELLO.labels.feature.id, label: 'Feature', description: 'green' },
      ]),
    )
    const other = await trello(
      'POST',
      `/boards?name=${encodeURIComponent('Other board')}&defaultLabels=false&defaultLists=false`,
    )
    await trello('POST', `/labels?name=Urgent&color=orange&idBoard=${other.id}`)
    const list = await trello('POST', `/lists?name=Inbox&idBoard=${other.id}`)
    expect(labels(await all('trello.create_card', 'label_ids', { list_id: list.id }))).toEqual(['Urgent'])
  })

  it("Update Card's lists, labels and members follow the chosen card", async () => {
    const dep = { card_id: TRELLO.cards.api.id }
    expect(labels(await all('trello.update_card', 'list_id', dep))).toEqual(
      expect.arrayContaining(['To Do', 'Doing', 'Done']),
    )
    expect(labels(await all('trello.update_card', 'label_ids', { ...dep, q: 'bug' }))).toEqual(['Bug'])
    expect(await all('trello.update_card', 'member_ids', dep)).toEqual(
      expect.arrayContaining([{ value: TRELLO.members.ada.id, label: 'Ada Lovelace', description: '@ada' }]),
    )
  })

  it('Create Checklist Item offers checklists as "Board / Card / Checklist"', async () => {
    const checklists = await all('trello.create_checklist_item', 'checklist_id', { q: 'launch' })
    expect(checklists).toContainEqual({
      value: TRELLO.checklist.id,
      label: expect.stringMatching(/^Roadmap \/ .+ \/ Launch checklist$/),
    })
  })
})

describe('Zendesk options', () => {
  it('tickets: recent first, paged without loss, and q searches subjects or finds a ticket by number', async () => {
    const token = await zendeskControl(stack).mintToken('admin@acme.test')
    for (let i = 0; i < 30; i++) {
      const res = await fetch(`${stack.sandboxUrl}/zendesk/acme/api/v2/tickets.json`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ticket: { subject: `Paging ticket ${i}`, comment: { body: 'x' } } }),
      })
      expect(res.status).toBe(201)
    }
    const first = await page('zendesk.get_ticket', 'ticket_id')
    expect(first.options).toHaveLength(25)
    expect(first.options[0].label).toBe('Paging ticket 29'.replace(/^/, `#${first.options[0].value} `))
    const tickets = await all('zendesk.get_ticket', 'ticket_id')
    expect(new Set(values(tickets)).size).toBe(tickets.length)
    expect(tickets.length).toBeGreaterThanOrEqual(36)
    const printer = tickets.find((t) => /Printer on fire/.test(t.label))!
    expect(printer).toMatchObject({
      label: `#${printer.value} Printer on fire`,
      description: expect.any(String),
    })

    expect(labels((await page('zendesk.update_ticket', 'ticket_id', { q: 'printer' })).options)).toEqual([
      printer.label,
    ])
    expect(
      values((await page('zendesk.delete_ticket', 'ticket_id', { q: `#${printer.value}` })).options)[0],
    ).toBe(printer.value)
    expect((await page('zendesk.delete_ticket', 'ticket_id', { q: '#999999' })).options).toEqual([])
    // Search operators typed as text stay text.
    expect((await page('zendesk.get_ticket', 'ticket_id', { q: 'status:open' })).options).toEqual([])
  })

  it('assignees are agents and admins only, and q searches names and emails', async () => {
    const agents = await all('zendesk.update_ticket', 'assignee')
    expect(agents).toContainEqual({
      value: expect.any(Number),
      label: 'Alan Agent',
      description: 'agent@acme.test',
    })
    expect(agents.some((a) => a.description === 'admin@acme.test')).toBe(true)
    expect(agents.every((a) => !/customer|requester|end/i.test(a.description ?? ''))).toBe(true)
    expect(labels(await all('zendesk.create_ticket', 'assignee', { q: 'alan' }))).toEqual(['Alan Agent'])
    expect(await all('zendesk.list_tickets', 'assignee', { q: 'nobody-by-this-name' })).toEqual([])
  })
})

describe('Vercel options', () => {
  it('projects: every project once across pages, and q searches names', async () => {
    const control = vercelControl(stack)
    // Vercel pages by update time, so each project gets its own second as real ones would.
    for (let i = 0; i < 25; i++) {
      await control.advanceClock(1000)
      expect(
        (await control.call('POST', '/projects', { owner: VERCEL.user.id, name: `site-${i}` })).status,
      ).toBe(201)
    }
    const first = await page('vercel.create_deployment', 'project')
    expect(first.options).toHaveLength(20)
    const projects = await all('vercel.create_deployment', 'project')
    expect(projects).toContainEqual({
      value: VERCEL.personalProject.id,
      label: 'ada-blog',
      description: 'nextjs',
    })
    expect(projects).toHaveLength(26)
    expect(new Set(values(projects)).size).toBe(26)
    expect(labels(await all('vercel.list_deployments', 'project', { q: 'blog' }))).toEqual(['ada-blog'])
    // A team's projects are not a personal integration's.
    expect(labels(projects)).not.toContain(VERCEL.teamProject.name)
  })

  it('Cancel Deployment offers only deployments that can still be cancelled', async () => {
    const control = vercelControl(stack)
    const building = (
      await control.call('POST', '/deployments', { project: VERCEL.personalProject.id, state: 'BUILDING' })
    ).body
    const offered = await all('vercel.cancel_deployment', 'id')
    expect(values(offered)).toContain(building.id ?? building.uid)
    expect(values(offered)).not.toContain(VERCEL.deployments.personalReady.id)
    expect(await all('vercel.cancel_deployment', 'id', { q: 'no-such-deployment' })).toEqual([])
  })
})

describe("bad requests name the field; other tenants' integrations do not exist", () => {
  const cases: Array<[string, string, string, Record<string, string>, number, string]> = [
    ['a field without options', 'trello.create_card', 'name', {}, 400, 'name'],
    ['a field that does not exist', 'trello.create_card', 'nope', {}, 400, 'nope'],
    ['a missing dependency', 'trello.create_card', 'label_ids', {}, 400, 'list_id'],
    ['an empty dependency', 'trello.update_card', 'member_ids', { card_id: '  ' }, 400, 'card_id'],
    [
      'a cursor these options never gave',
      'zendesk.get_ticket',
      'ticket_id',
      { cursor: 'x:1' },
      400,
      'cursor',
    ],
    ['a cursor of another kind', 'vercel.create_deployment', 'project', { cursor: 'abc' }, 400, 'cursor'],
    ['a very long q', 'trello.create_list', 'board_id', { q: 'x'.repeat(201) }, 400, 'q'],
  ]
  it.each(cases)('%s', async (_name, tool, field, params, status, named) => {
    const res = await options(tool, field, params)
    expect(res.status, res.text).toBe(status)
    expect(res.body.errors.map((e: any) => e.field)).toContain(named)
  })

  it('a missing integration is named; an unknown tool is 404', async () => {
    const missing = await api.get('/v1/tools/trello.create_card/options/list_id')
    expect(missing.status).toBe(400)
    expect(missing.body.errors[0].field).toBe('integration')
    expect((await api.get(`/v1/tools/trello.nope/options/list_id?integration=${ids.trello}`)).status).toBe(
      404,
    )
  })

  it("another user's integration answers 404 exactly like one that does not exist", async () => {
    const intruder = client(stack, (await stack.createUser()).apiKey)
    const theirs = await intruder.get(
      `/v1/tools/zendesk.get_ticket/options/ticket_id?integration=${ids.zendesk}`,
    )
    const none = await intruder.get(
      '/v1/tools/zendesk.get_ticket/options/ticket_id?integration=int_doesnotexist00000000',
    )
    expect(theirs.status).toBe(404)
    expect(none.status).toBe(404)
    expect(theirs.body.code).toBe(none.body.code)
    expect(theirs.body.detail.replace(ids.zendesk, 'ID')).toBe(
      none.body.detail.replace('int_doesnotexist00000000', 'ID'),
    )
  })

  it('a disconnected integration is said to be disconnected, and the platform is not asked', async () => {
    const user = await stack.createUser()
    const theirs = client(stack, user.apiKey)
    const integration = (await connectZendesk({ url: stack.url, apiKey: user.apiKey })).integrationId!
    expect((await theirs.post(`/v1/integrations/${integration}/disconnect`)).status).toBe(200)
    await zendeskControl(stack).clearRequests()
    const res = await theirs.get(`/v1/tools/zendesk.get_ticket/options/ticket_id?integration=${integration}`)
    expect(res.status).toBeGreaterThanOrEqual(400)
    expect(res.status).toBeLessThan(500)
    expect(res.body.detail).toMatch(/disconnected/i)
    expect(await zendeskControl(stack).requests()).toEqual([])
  })

  it("an integration of another platform is not one of this step's", async () => {
    const res = await options('trello.create_card', 'list_id', {}, 'zendesk')
    expect(res.status).toBe(404)
  })
})

describe('switchyard tools options', () => {
  const BIN = path.resolve(import.meta.dirname, '../bin/switchyard.js')
  const cli = (args: string[]) =>
    promisify(execFile)(process.execPath, [BIN, ...args], {
      env: { ...process.env, SWITCHYARD_URL: stack.url, SWITCHYARD_API_KEY: stack.apiKey },
      timeout: 60_000,
    })

  it("lists a field's options with --json, following a dependency given with --set", async () => {
    const { stdout } = await cli([
      'tools',
      'options',
      'trello.create_card',
      'label_ids',
      '--integration',
      ids.trello,
      '--set',
      `list_id=${TRELLO.lists.todo.id}`,
      '--q',
      'bug',
      '--json',
    ])
    expect(JSON.parse(stdout)).toEqual({
      options: [{ value: TRELLO.labels.bug.id, label: 'Bug', description: 'red' }],
      next_cursor: null,
    })
  })

  it('prints value and label per line for people, and the cursor of the next page', async () => {
    const { stdout } = await cli([
      'tools',
      'options',
      'zendesk.update_ticket',
      'ticket_id',
      '--integration',
      ids.zendesk,
    ])
    expect(stdout).toMatch(/^\d+\s+#\d+ .+\(\w+\)$/m)
    expect(stdout).toMatch(/^more: add --cursor c:\S+$/m)
  })

  it('a missing dependency exits 1 with the problem naming it', async () => {
    const failed = await cli([
      'tools',
      'options',
      'trello.create_card',
      'label_ids',
      '--integration',
      ids.trello,
    ]).catch((err) => err)
    expect(failed.code).toBe(1)
    expect(JSON.parse(failed.stdout).errors[0].field).toBe('list_id')
  })

  it('tools list --json says which fields have options', async () => {
    const { stdout } = await cli(['tools', 'list', '--json'])
    const update = JSON.parse(stdout).find((t: any) => t.id === 'trello.update_card')
    expect(update.fieldOptions.member_ids).toEqual({ dependsOn: ['card_id'] })
  })
})
