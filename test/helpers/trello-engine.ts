import { sql } from 'kysely'
import { afterAll, beforeAll } from 'vitest'
import { startTestStack, type TestStack } from './test-stack.ts'
import { signature } from '../../src/platforms/trello/webhooks.ts'
import { connectTrelloOAuth } from './connect-trello.ts'
import { client } from './stack.ts'
import { act } from './trello-triggers.ts'
import { TRELLO, trelloControl } from './trello.ts'

/**
 * The engine's guarantee tests (test/engine/) share this: a Trello integration connected by OAuth
 * (so the intake verifies signatures with the app's secret), a fresh board per test so each test
 * has its own webhook, agents and subscriptions made over REST, and waits with deadlines.
 */

export type Api = ReturnType<typeof client>

/** Polls `probe` until it answers something truthy; throws with `what` after the deadline. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A board made silently at the sandbox (no actions, no webhooks), with Ada as owner and Grace as member. */
export async function freshBoard(
  stack: { sandboxUrl: string },
  name = `board ${Math.random().toString(36).slice(2, 8)}`,
) {
  const res = await trelloControl(stack).call('POST', '/boards', { name, owner: 'ada', members: ['grace'] })
  if (res.status !== 201) throw new Error(`board: ${res.status} ${JSON.stringify(res.body)}`)
  const board = res.body.board
  return { id: board.id as string, lists: board.lists as Array<{ id: string; name: string }> }
}

/** A card made on the board by a person in Trello's UI (another member than the integration's by default). */
export const personCreatesCard = (stack: TestStack, idList: string, name: string, member = 'grace') =>
  act(stack, member, 'POST', '/1/cards', { idList, name })

/** An agent that comments on the card its event names: inputs `title` and `card_id`. */
export function commentingAgent(
  integration: string,
  name = `Commenter ${Math.random().toString(36).slice(2, 8)}`,
) {
  return {
    name,
    inputs: [
      { name: 'title', type: 'string', required: true },
      { name: 'card_id', type: 'string', required: true },
    ],
    kind: 'steps',
    steps: [
      {
        key: 'note',
        tool: 'trello.add_comment_to_card',
        integration,
        input: { card_id: '{{ inputs.card_id }}', text: 'Seen: {{ inputs.title }}' },
      },
    ],
    output: { comment: '{{ steps.note.output.id }}' },
  }
}

/** An agent that files a card named `title` on the seeded board's To Do list. */
export function cardFilingAgent(integration: string) {
  return {
    name: 'Card filer',
    inputs: [{ name: 'title', type: 'string', required: true }],
    kind: 'steps',
    steps: [
      {
        key: 'file',
        tool: 'trello.create_card',
        integration,
        input: { list_id: TRELLO.lists.todo.id, name: '{{ inputs.title }}' },
      },
    ],
  }
}

export const CARD_MAPPING = { title: '{{ card.name }}', card_id: '{{ card.id }}' }

export async function createAgent(api: Api, definition: unknown): Promise<string> {
  const res = await api.post('/v1/agents', definition)
  if (res.status !== 201) throw new Error(`agent: ${res.status} ${res.text}`)
  return res.body.id
}

/** A subscription made and (unless told otherwise) activated over REST. */
export async function subscribe(
  api: Api,
  agentId: string,
  body: Record<string, unknown>,
  activate = true,
): Promise<any> {
  const created = await api.post(`/v1/agents/${agentId}/subscriptions`, body)
  if (created.status !== 201) throw new Error(`subscription: ${created.status} ${created.text}`)
  if (!activate) return created.body
  const active = await api.post(`/v1/subscriptions/${created.body.id}/activate`)
  if (active.status !== 200) throw new Error(`activate: ${active.status} ${active.text}`)
  return active.body
}

/** The sandbox's webhooks on one model. */
/**
 * An agent that reads a card, subscribed to the integration's new notifications (polled, with
 * `text` mapped in): the poll tests' subject.
 */
export async function notifiedAgentSubscribed(api: Api, integration: string, name = 'Notified') {
  const agent = await createAgent(api, {
    name,
    inputs: [{ name: 'text', type: 'string', required: true }],
    kind: 'steps',
    steps: [{ key: 'me', tool: 'trello.get_card', integration, input: { card_id: TRELLO.cards.api.id } }],
  })
  const sub = await subscribe(api, agent, {
    trigger: 'trello.new_notification',
    integration,
    config: {},
    mapping: { text: '{{ text }}' },
  })
  return { agent, sub }
}

export async function sandboxHooks(
  stack: { sandboxUrl: string },
  idModel: string,
): Promise<Array<{ id: string; callbackURL: string; idModel: string; active: boolean }>> {
  const res = await trelloControl(stack).call('GET', '/webhooks')
  const all = Array.isArray(res.body) ? res.body : res.body.webhooks
  return all.filter((w: { idModel: string }) => w.idModel === idModel)
}

/** Waits until the sandbox has no delivery pending. */
export async function deliveriesSettled(stack: { sandboxUrl: string }, timeoutMs = 30_000): Promise<void> {
  const res = await trelloControl(stack).call('GET', `/deliveries?settled=1&timeout_ms=${timeoutMs}`)
  if (!res.body.settled) throw new Error(`deliveries did not settle: ${res.body.pending} pending`)
}

/** Runs of a subscription, straight from the database (not test runs). */
export async function runsOf(stack: TestStack, subscriptionId: string) {
  return stack.services.store.db
    .selectFrom('runs')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('test', '=', false)
    .execute()
}

export async function count(stack: TestStack, table: 'events' | 'runs'): Promise<number> {
  const { rows } = await sql<{ n: string | number }>`select count(*) as n from ${sql.table(table)}`.execute(
    stack.services.store.db,
  )
  return Number(rows[0]!.n)
}

/** The webhook row a subscription uses (its token and address). */
export async function hookOf(stack: TestStack, subscriptionId: string) {
  const [hook] = await stack.services.webhooks.forSubscription(subscriptionId)
  if (!hook) throw new Error(`subscription ${subscriptionId} has no webhook`)
  return { ...hook, callbackUrl: stack.services.webhooks.addressOf(hook.token), path: `/hooks/${hook.token}` }
}

/** Signs a body as Trello would for a callback URL, with the deployment's Trello app secret. */
export function sign(stack: TestStack, body: Buffer | string, callbackUrl: string): string {
  const secret = stack.services.runtimes.get('trello')!.client.clientSecret
  return signature(secret, Buffer.isBuffer(body) ? body : Buffer.from(body), callbackUrl).toString('base64')
}

/** Posts raw bytes to the intake as a platform would. */
export async function postHook(
  base: string,
  path: string,
  body: Buffer | string,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  })
  return { status: res.status, text: await res.text() }
}

/** A Trello delivery body for an action (`{action, model}` as the sandbox sends it). */
export function deliveryBody(action: Record<string, unknown>, model: Record<string, unknown> = {}): string {
  return JSON.stringify({ action, model })
}

/** A Trello integration connected by OAuth, for Ada unless another member's email is given. */
export async function connectAda(stack: TestStack, email?: string) {
  const integration = (await connectTrelloOAuth(stack, email ? { email } : {})).integrationId
  if (!integration) throw new Error('Trello connect failed')
  return integration
}

export interface TrelloEngine {
  stack: TestStack
  api: Api
  /** Ada's Trello integration, connected by OAuth. */
  ada: string
}

/**
 * The engine tests' stack: the service on TEST_DATABASE_URL when set (else embedded), with Ada's
 * Trello connected.
 */
export async function startTrelloEngine(): Promise<TrelloEngine> {
  const stack = await startTestStack({ databaseUrl: process.env.TEST_DATABASE_URL })
  const api = client(stack, stack.apiKey)
  return { stack, api, ada: await connectAda(stack) }
}

/**
 * A describe block's engine stack, started in its beforeAll and closed in its afterAll; `ready` is
 * given it there, then does what the block sets up once (a board, an agent, a subscription).
 */
export function trelloEngineSuite(ready: (engine: TrelloEngine) => void | Promise<void>): void {
  let engine: TrelloEngine | undefined
  beforeAll(async () => {
    engine = await startTrelloEngine()
    await ready(engine)
  })
  afterAll(async () => engine?.stack.close())
}
