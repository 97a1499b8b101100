import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { platforms } from '../src/platforms/index.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectZendesk } from './helpers/connect.ts'
import { client } from './helpers/stack.ts'
import { connectTrelloWithToken, TRELLO } from './helpers/trello.ts'
import { connectVercel, VERCEL, vercelControl } from './helpers/vercel.ts'

// Issue 13 §2: every step's result comes with one line a person reads first, linking to the object
// on the integration's own host. Each step runs against its sandbox over real HTTP, through REST.
let stack: TestStack
let api: ReturnType<typeof client>
const integrations: Record<string, string> = {}

beforeAll(async () => {
  stack = await startTestStack()
  api = client(stack, stack.apiKey)
  integrations.zendesk = (await connectZendesk(stack)).integrationId!
  integrations.trello = await connectTrelloWithToken(stack)
  integrations.vercel = (await connectVercel(stack)).integrationId!
  await vercelControl(stack).rateLimits({ disabled: true })
})
afterAll(async () => {
  await stack?.close()
})

/** A summary's link leads to a page of the sandbox that names the object. */
async function expectPage(url: string | undefined, names: string) {
  expect(url).toBeDefined()
  const res = await fetch(url!)
  expect(res.status, url).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^text\/html/)
  expect(await res.text()).toContain(names)
}

async function run(tool: string, input: Record<string, unknown>) {
  const { status, body } = await api.run(tool, integrations[tool.split('.')[0]], input)
  expect(status, `${tool} ${JSON.stringify(body)}`).toBe(200)
  return body as { output: any; summary: { text: string; url?: string; tone?: string } | null }
}

it('every pre-built step and every API Call declares a summary', () => {
  const missing = platforms
    .flatMap((p) => p.tools)
    .filter((t) => !t.summarize)
    .map((t) => t.id)
  expect(missing).toEqual([])
})

describe('Zendesk summaries link to the ticket in the agent interface of the sandbox', () => {
  const agentUrl = (id: number) => `${stack.sandboxUrl}/zendesk/acme/agent/tickets/${id}`

  it("names each ticket step's result", async () => {
    const created = await run('zendesk.create_ticket', { subject: 'Printer on fire', description: 'Smoke.' })
    const id = created.output.id
    expect(created.summary).toEqual({ text: `Ticket #${id}: Printer on fire created`, url: agentUrl(id) })
    await expectPage(created.summary?.url, 'Printer on fire')
    expect(
      (
        await run('zendesk.update_ticket', {
          ticket_id: id,
          status: 'pending',
          internal_note: 'Called facilities.',
        })
      ).summary,
    ).toEqual({ text: `Ticket #${id}: Printer on fire updated (pending)`, url: agentUrl(id) })
    expect((await run('zendesk.get_ticket', { ticket_id: id })).summary).toEqual({
      text: `Ticket #${id}: Printer on fire (pending, 2 comments)`,
      url: agentUrl(id),
    })
    expect((await run('zendesk.list_tickets', { limit: 1 })).summary?.text).toMatch(
      /^1 ticket(, more on the next page)?$/,
    )
    expect(
      (await run('zendesk.search_tickets', { query: 'subject:"Printer on fire"' })).summary?.text,
    ).toMatch(/^\d+ tickets? match/)
    expect((await run('zendesk.delete_ticket', { ticket_id: id })).summary).toEqual({
      text: `Ticket #${id} deleted permanently`,
    })
  })
})

describe('Trello summaries link to the card on the sandbox, not on trello.com', () => {
  it("names each card, list and checklist step's result", async () => {
    const list = await run('trello.create_list', { name: 'Summaries', board_id: TRELLO.board.id })
    expect(list.summary).toEqual({ text: 'List "Summaries" created' })
    const card = await run('trello.create_card', { list_id: list.output.id, name: 'Printer on fire' })
    const cardUrl = `${stack.sandboxUrl}/trello/c/${card.output.shortLink}`
    expect(card.summary).toEqual({ text: 'Card "Printer on fire" created', url: cardUrl })
    await expectPage(cardUrl, 'Printer on fire')
    expect((await run('trello.update_card', { card_id: card.output.id, desc: 'Smoke.' })).summary).toEqual({
      text: 'Card "Printer on fire" updated',
      url: cardUrl,
    })
    expect((await run('trello.get_card', { card_id: card.output.id })).summary).toEqual({
      text: 'Card "Printer on fire" in Summaries on Roadmap',
      url: cardUrl,
    })
    expect((await run('trello.get_list_cards', { list_id: list.output.id })).summary).toEqual({
      text: '1 card',
    })
    const checklist = await run('trello.add_checklist', {
      card_id: card.output.id,
      name: 'Steps',
      items: ['Call', 'Evacuate'],
    })
    expect(checklist.summary).toEqual({ text: 'Checklist "Steps" added with 2 items' })
    expect(
      (await run('trello.create_checklist_item', { checklist_id: checklist.output.id, name: 'Extinguish' }))
        .summary,
    ).toEqual({ text: 'Checklist item "Extinguish" added (incomplete)' })
    expect(
      (await run('trello.add_comment_to_card', { card_id: card.output.id, text: 'On it' })).summary,
    ).toEqual({ text: 'Comment added to card "Printer on fire"' })
    expect((await run('trello.add_comment', { card_id: card.output.id, comment: 'Done' })).summary).toEqual({
      text: 'Comment added to card "Printer on fire"',
    })
    expect((await run('trello.get_boards', {})).summary?.text).toMatch(/^\d+ boards?: .*Roadmap/)
    expect((await run('trello.archive_card', { card_id: card.output.id })).summary).toEqual({
      text: 'Card "Printer on fire" archived',
      url: cardUrl,
    })
    const nameless = await run('trello.create_card', { list_id: list.output.id })
    expect(nameless.summary?.text).toBe('Card without a name created')
  })
})

describe('Vercel summaries link to the deployment inspector on the sandbox', () => {
  it("names each deployment step's result", async () => {
    const created = await run('vercel.create_deployment', { project: VERCEL.personalProject.name })
    const d = created.output
    expect(d.project_created).toBe(false)
    expect(created.summary?.text).toBe(
      `Deployment ${VERCEL.personalProject.name} (preview, ${d.readyState}) created`,
    )
    expect(created.summary?.url).toBe(`${stack.sandboxUrl}/vercel${new URL(d.inspectorUrl).pathname}`)
    await expectPage(created.summary?.url, d.id)
    expect(
      (await run('vercel.list_deployments', { project: VERCEL.personalProject.name, limit: 1 })).summary
        ?.text,
    ).toMatch(/^1 deployment(, more on the next page)?$/)
    const cancelled = await run('vercel.cancel_deployment', { id: d.id })
    expect(cancelled.summary).toEqual({
      text: `Deployment ${VERCEL.personalProject.name} (preview, CANCELED) cancelled`,
      url: created.summary?.url,
    })
  })
})

describe('API Call summaries say what the platform answered', () => {
  it.each([
    [
      'vercel.api_call',
      '/v13/deployments/dpl_doesnotexist1',
      'Vercel answered 404 Not Found to GET /v13/deployments/dpl_doesnotexist1',
    ],
    [
      'zendesk.api_call',
      '/api/v2/tickets/999999.json',
      'Zendesk answered 404 Not Found to GET /api/v2/tickets/999999.json',
    ],
  ])('a 4xx from %s is marked as an error', async (tool, endpoint, text) => {
    expect((await run(tool, { method: 'GET', endpoint })).summary).toEqual({ text, tone: 'error' })
  })

  it('leaves the query string out of the line', async () => {
    expect(
      (await run('vercel.api_call', { method: 'GET', endpoint: '/v6/deployments?limit=1&secret=hunter2' }))
        .summary?.text,
    ).toBe('Vercel answered 200 OK to GET /v6/deployments')
  })

  it('a 2xx is not', async () => {
    expect((await run('vercel.api_call', { method: 'GET', endpoint: '/v6/deployments' })).summary).toEqual({
      text: 'Vercel answered 200 OK to GET /v6/deployments',
    })
  })
})

describe('Create Deployment never creates a project by surprise', () => {
  it('refuses an unknown project name, naming the project field, and creates nothing', async () => {
    const { status, body } = await api.run('vercel.create_deployment', integrations.vercel, {
      project: 'ada-blgo',
    })
    expect(status).toBe(400)
    expect(body.errors).toEqual([
      {
        field: 'input.project',
        message: expect.stringMatching(/no project is named ada-blgo.*create_project_if_missing/),
      },
    ])
    const lookup = await run('vercel.api_call', { method: 'GET', endpoint: '/v9/projects/ada-blgo' })
    expect(lookup.output.status).toBe(404)
  })

  it('creates the project when asked to, and says so', async () => {
    const created = await run('vercel.create_deployment', {
      project: 'ada-new-site',
      create_project_if_missing: true,
    })
    expect(created.output.project_created).toBe(true)
    expect(created.summary?.text).toMatch(/created; project ada-new-site was created for it$/)
    const again = await run('vercel.create_deployment', {
      project: 'ada-new-site',
      create_project_if_missing: true,
    })
    expect(again.output.project_created).toBe(false)
  })
})

describe('the catalogue says which steps ask before running', () => {
  it('every delete step, Archive Card and Cancel Deployment carry a question; reads never do', async () => {
    const { body } = await api.get('/v1/tools')
    const asking = (body.tools as Array<{ id: string; effect: string; confirm?: string }>)
      .filter((t) => t.confirm)
      .map((t) => t.id)
      .sort()
    expect(asking).toEqual(['trello.archive_card', 'vercel.cancel_deployment', 'zendesk.delete_ticket'])
  })
})
