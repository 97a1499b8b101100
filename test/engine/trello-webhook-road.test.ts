import { describe, expect, it } from 'vitest'
import type { TestStack } from '../helpers/test-stack.ts'
import {
  CARD_MAPPING,
  commentingAgent,
  connectAda,
  createAgent,
  deliveriesSettled,
  freshBoard,
  hookOf,
  personCreatesCard,
  postHook,
  runsOf,
  sandboxHooks,
  sign,
  subscribe,
  waitFor,
  type Api,
  trelloEngineSuite,
} from '../helpers/trello-engine.ts'
import { waitForRun } from '../helpers/runs.ts'
import { act } from '../helpers/trello-triggers.ts'
import { trelloControl } from '../helpers/trello.ts'

// The engine's guarantees on Trello, end to end (docs/architecture.md, "The road of an event"):
// REST sets up an agent and its subscriptions, the sandbox makes and signs the deliveries itself,
// the intake accepts them and the worker runs the agent. Runs on PGlite, or on PostgreSQL with TEST_DATABASE_URL.
describe('Trello events reach agents', () => {
  let stack: TestStack, api: Api, ada: string
  trelloEngineSuite((engine) => {
    ;({ stack, api, ada } = engine)
  })

  it('the whole road: subscribe, test, activate, a card made by a person runs the agent with the mapped inputs', async () => {
    const board = await freshBoard(stack)
    const agent = await createAgent(api, commentingAgent(ada))
    const earlier = await personCreatesCard(stack, board.lists[0]!.id, 'Before the trigger')
    const sub = await subscribe(
      api,
      agent,
      {
        trigger: 'trello.new_card',
        integration: ada,
        config: { board_ids: [board.id] },
        mapping: CARD_MAPPING,
      },
      false,
    )
    expect(sub.status).toBe('inactive')

    // The test shows a recent real event, mapped as a run would be.
    const tested = await api.post(`/v1/subscriptions/${sub.id}/test`, {})
    expect(tested.status, tested.text).toBe(200)
    expect(tested.body.source).toBe('recent')
    expect(tested.body.inputs).toEqual({ title: 'Before the trigger', card_id: earlier.id })
    expect(tested.body.errors).toEqual([])

    const active = await api.post(`/v1/subscriptions/${sub.id}/activate`)
    expect(active.status, active.text).toBe(200)
    expect(active.body.status).toBe('active')
    const hook = await hookOf(stack, sub.id)
    const [remote, ...others] = await sandboxHooks(stack, board.id)
    expect(others).toEqual([])
    expect(remote!.id).toBe(hook.remote_id)
    expect(remote!.callbackURL).toBe(`${stack.url}/hooks/${hook.token}`)
    // Trello created it only after its HEAD check got a 200; the address still answers it.
    expect((await fetch(remote!.callbackURL, { method: 'HEAD' })).status).toBe(200)
    expect(remote!.active).toBe(true)

    const card = await personCreatesCard(stack, board.lists[0]!.id, 'Printer on fire')
    const [queued] = await waitFor('the run', async () => {
      const runs = await runsOf(stack, sub.id)
      return runs.length ? runs : undefined
    })
    const run = await waitForRun(api, queued!.id)
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded')
    expect(run.started_by).toBe('trigger')
    expect(run.subscription_id).toBe(sub.id)
    expect(run.trigger_id).toBe('trello.new_card')
    expect(run.inputs).toEqual({ title: 'Printer on fire', card_id: card.id })
    expect(run.event.card.id).toBe(card.id)
    const comments = await act(stack, 'ada', 'GET', `/1/cards/${card.id}/actions`, { filter: 'commentCard' })
    expect(comments.map((c: any) => c.data.text)).toEqual(['Seen: Printer on fire'])
    // Ada's comment is her own change through the watched integration: it starts nothing more.
    await deliveriesSettled(stack)
    expect(await runsOf(stack, sub.id)).toHaveLength(1)
    expect((await api.get(`/v1/subscriptions/${sub.id}`)).body.last_event_at).toBeTruthy()
  })

  it('a move fires Card Updated and Card Moved; a title change fires only Card Updated (two subscriptions, one webhook)', async () => {
    const board = await freshBoard(stack)
    const card = await personCreatesCard(stack, board.lists[0]!.id, 'Movable')
    const agent = await createAgent(api, commentingAgent(ada))
    const updated = await subscribe(api, agent, {
      trigger: 'trello.card_updated',
      integration: ada,
      config: { board_ids: [board.id] },
      mapping: CARD_MAPPING,
    })
    const moved = await subscribe(api, agent, {
      trigger: 'trello.card_moved',
      integration: ada,
      config: { board_ids: [board.id] },
      mapping: CARD_MAPPING,
    })
    expect(await sandboxHooks(stack, board.id)).toHaveLength(1)
    expect((await hookOf(stack, updated.id)).id).toBe((await hookOf(stack, moved.id)).id)

    await act(stack, 'grace', 'PUT', `/1/cards/${card.id}`, { idList: board.lists[1]!.id })
    await waitFor(
      'a run on each',
      async () =>
        (await runsOf(stack, updated.id)).length === 1 && (await runsOf(stack, moved.id)).length === 1,
    )
    await act(stack, 'grace', 'PUT', `/1/cards/${card.id}`, { name: 'Renamed' })
    await waitFor('the second Card Updated run', async () => (await runsOf(stack, updated.id)).length === 2)
    await deliveriesSettled(stack)
    expect(await runsOf(stack, moved.id)).toHaveLength(1)
    const titles = (await runsOf(stack, updated.id)).map((r) => (r.inputs as { title: string }).title).sort()
    expect(titles).toEqual(['Movable', 'Renamed'])
  })

  it('duplicates: one delivery sent three times at once gives one run per subscription on its webhook', async () => {
    const board = await freshBoard(stack)
    const agent = await createAgent(api, commentingAgent(ada))
    const first = await subscribe(api, agent, {
      trigger: 'trello.new_card',
      integration: ada,
      config: { board_ids: [board.id] },
      mapping: CARD_MAPPING,
    })
    const second = await subscribe(api, agent, {
      trigger: 'trello.new_card',
      integration: ada,
      config: { board_ids: [board.id] },
      mapping: CARD_MAPPING,
    })
    const hook = await hookOf(stack, first.id)
    expect((await hookOf(stack, second.id)).id).toBe(hook.id)

    await personCreatesCard(stack, board.lists[0]!.id, 'Twice told')
    await deliveriesSettled(stack)
    const [sent] = (await trelloControl(stack).call('GET', `/deliveries?webhook=${hook.remote_id}`)).body
      .deliveries
    expect(sent.state).toBe('delivered')
    // The platform retries: the same bytes and signature arrive again, three at once.
    const again = await Promise.all(
      [1, 2, 3].map(() => postHook(stack.url, hook.path, sent.body, { 'x-trello-webhook': sent.signature })),
    )
    expect(again.map((r) => r.status)).toEqual([200, 200, 200])
    expect(sign(stack, sent.body, hook.callbackUrl)).toBe(sent.signature)
    for (const sub of [first, second]) {
      const runs = await runsOf(stack, sub.id)
      expect(runs, sub.id).toHaveLength(1)
      expect((runs[0]!.inputs as { title: string }).title).toBe('Twice told')
    }
    // A delivery not seen before, arriving three times at the same moment: still one run each.
    const fresh = JSON.parse(sent.body)
    fresh.action.id = 'a'.repeat(24)
    fresh.action.data.card.name = 'Thrice told'
    const body = JSON.stringify(fresh)
    const racing = await Promise.all(
      [1, 2, 3].map(() =>
        postHook(stack.url, hook.path, body, { 'x-trello-webhook': sign(stack, body, hook.callbackUrl) }),
      ),
    )
    expect(racing.map((r) => r.status)).toEqual([200, 200, 200])
    for (const sub of [first, second]) {
      const titles = (await runsOf(stack, sub.id)).map((r) => (r.inputs as { title: string }).title).sort()
      expect(titles, sub.id).toEqual(['Thrice told', 'Twice told'])
    }
    const events = await stack.services.store.db
      .selectFrom('events')
      .selectAll()
      .where('source', '=', `webhook:${hook.id}`)
      .execute()
    expect(events).toHaveLength(2)
  })

  it("no loops: a run's own write through the watched integration starts nothing, unless start_on_own_changes", async () => {
    const board = await freshBoard(stack)
    const list = board.lists[0]!.id
    const filer = (name: string) => ({
      name,
      inputs: [{ name: 'title', type: 'string', required: true }],
      kind: 'steps',
      steps: [
        {
          key: 'card',
          tool: 'trello.create_card',
          integration: ada,
          input: { list_id: list, name: 'Echo of {{ inputs.title }}' },
        },
      ],
    })
    const guarded = await createAgent(api, filer(`Guarded ${Math.random()}`))
    const sub = await subscribe(api, guarded, {
      trigger: 'trello.new_card',
      integration: ada,
      config: { board_ids: [board.id] },
      mapping: { title: '{{ card.name }}' },
    })
    await personCreatesCard(stack, list, 'Seed')
    const [run] = await waitFor('the first run', async () => {
      const runs = await runsOf(stack, sub.id)
      return runs.length ? runs : undefined
    })
    expect((await waitForRun(api, run!.id)).status).toBe('succeeded')
    await deliveriesSettled(stack)
    // The echo card was delivered (Trello sends every action) but matched no subscription.
    const cards = await act(stack, 'ada', 'GET', `/1/lists/${list}/cards`, { fields: 'name' })
    expect(cards.map((c: any) => c.name).sort()).toEqual(['Echo of Seed', 'Seed'])
    expect(await runsOf(stack, sub.id)).toHaveLength(1)

    // The same step through ANOTHER integration (Grace's) is someone else's change: it starts a run.
    const grace = await connectAda(stack, 'grace@trello.test')
    const viaGrace = await createAgent(api, {
      ...filer(`Via Grace ${Math.random()}`),
      steps: [
        {
          key: 'card',
          tool: 'trello.create_card',
          integration: grace,
          input: { list_id: list, name: '{{ inputs.title }}' },
        },
      ],
    })
    const started = await api.post(`/v1/agents/${viaGrace}/runs`, { inputs: { title: 'Filed by Grace' } })
    expect((await waitForRun(api, started.body.id)).status).toBe('succeeded')
    const [, second] = await waitFor("the run for Grace's card", async () => {
      const runs = await runsOf(stack, sub.id)
      return runs.length === 2
        ? runs.sort((a, b) => a.created_at.getTime() - b.created_at.getTime())
        : undefined
    })
    expect(second!.inputs).toEqual({ title: 'Filed by Grace' })

    // Asked to, the engine does start on its own changes: one echo, bounded by a condition in the agent.
    const board2 = await freshBoard(stack)
    const list2 = board2.lists[0]!.id
    const echoing = await createAgent(api, {
      ...filer(`Echoing ${Math.random()}`),
      steps: [
        {
          key: 'card',
          tool: 'trello.create_card',
          integration: ada,
          input: { list_id: list2, name: 'Echo of {{ inputs.title }}' },
          condition: '$not($contains(inputs.title, "Echo"))',
        },
      ],
    })
    const own = await subscribe(api, echoing, {
      trigger: 'trello.new_card',
      integration: ada,
      config: { board_ids: [board2.id] },
      mapping: { title: '{{ card.name }}' },
      start_on_own_changes: true,
    })
    expect(own.start_on_own_changes).toBe(true)
    await personCreatesCard(stack, list2, 'Seed')
    const runs = await waitFor('the echo run', async () => {
      const found = await runsOf(stack, own.id)
      return found.length === 2 ? found : undefined
    })
    expect(runs.map((r) => (r.inputs as { title: string }).title).sort()).toEqual(['Echo of Seed', 'Seed'])
  })
})
