import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import type { TestStack } from '../helpers/test-stack.ts'
import {
  CARD_MAPPING,
  commentingAgent,
  createAgent,
  deliveriesSettled,
  freshBoard,
  hookOf,
  personCreatesCard,
  postHook,
  runsOf,
  sign,
  subscribe,
  waitFor,
  type Api,
  trelloEngineSuite,
} from '../helpers/trello-engine.ts'
import { connectTrelloWithToken, trelloControl } from '../helpers/trello.ts'

// The intake's guarantees (docs/architecture.md, "The road of an event"): a 2xx only once the event
// and its runs are committed, and nothing at all stored for a delivery that is not Trello's.
describe('the webhook intake on Trello deliveries', () => {
  let stack: TestStack, api: Api, ada: string
  let sub: { id: string }
  let hook: Awaited<ReturnType<typeof hookOf>>
  /** A real delivery the sandbox made and signed, as a template for the ones below. */
  let template: { action: any; model: any }
  let counter = 0

  /** The template with a fresh action id (never seen, so dedupe cannot hide a stored row). */
  const freshBody = (name = 'Fresh card') => {
    const body = structuredClone(template)
    body.action.id = (++counter).toString(16).padStart(24, 'c')
    body.action.data.card.name = name
    return JSON.stringify(body)
  }
  const stored = async () => ({
    events: (
      await stack.services.store.db
        .selectFrom('events')
        .select('id')
        .where('source', '=', `webhook:${hook.id}`)
        .execute()
    ).length,
    runs: (await runsOf(stack, sub.id)).length,
  })

  trelloEngineSuite(async (engine) => {
    ;({ stack, api, ada } = engine)
    const board = await freshBoard(stack)
    const agent = await createAgent(api, commentingAgent(ada))
    sub = await subscribe(api, agent, {
      trigger: 'trello.new_card',
      integration: ada,
      config: { board_ids: [board.id] },
      mapping: CARD_MAPPING,
    })
    hook = await hookOf(stack, sub.id)
    await personCreatesCard(stack, board.lists[0]!.id, 'Template')
    await deliveriesSettled(stack)
    const [delivery] = (await trelloControl(stack).call('GET', `/deliveries?webhook=${hook.remote_id}`)).body
      .deliveries
    template = JSON.parse(delivery.body)
    await waitFor('the template run', async () => (await runsOf(stack, sub.id)).length === 1)
  })

  it('acknowledged only when durable: the 200 comes after the event and its run are in the database', async () => {
    for (let i = 0; i < 5; i++) {
      const body = freshBody(`Durable ${i}`)
      const id = JSON.parse(body).action.id
      const res = await postHook(stack.url, hook.path, body, {
        'x-trello-webhook': sign(stack, body, hook.callbackUrl),
      })
      expect(res.status, res.text).toBe(200)
      const event = await stack.services.store.db
        .selectFrom('events')
        .select('id')
        .where('source', '=', `webhook:${hook.id}`)
        .where('dedupe_key', '=', id)
        .executeTakeFirst()
      expect(event, `event of ${id}`).toBeDefined()
      const run = await stack.services.store.db
        .selectFrom('runs')
        .select(['id', 'inputs'])
        .where('event_id', '=', event!.id)
        .where('subscription_id', '=', sub.id)
        .executeTakeFirst()
      expect((run?.inputs as { title?: string } | undefined)?.title).toBe(`Durable ${i}`)
    }
  })

  it('acknowledged only when durable: a database failure inside the transaction answers non-2xx, stores nothing, and the retry is accepted', async () => {
    const db = stack.services.store.db
    // A failure after the event row and while inserting its run: the whole transaction must roll back.
    await sql`create or replace function intake_test_refuse() returns trigger language plpgsql as $$
      begin
        if new.inputs->>'title' = 'Refused by the database' then raise exception 'refused by the test'; end if;
        return new;
      end $$`.execute(db)
    await sql`create trigger intake_test_refuse before insert on runs for each row execute function intake_test_refuse()`.execute(
      db,
    )
    const body = freshBody('Refused by the database')
    const headers = { 'x-trello-webhook': sign(stack, body, hook.callbackUrl) }
    const before = await stored()
    try {
      const refused = await postHook(stack.url, hook.path, body, headers)
      expect(refused.status).toBeGreaterThanOrEqual(500)
      expect(refused.text).not.toMatch(/refused by the test/) // the database's words stay in the log
      expect(await stored()).toEqual(before)
    } finally {
      await sql`drop trigger if exists intake_test_refuse on runs`.execute(db)
      await sql`drop function if exists intake_test_refuse()`.execute(db)
    }
    // Trello retries the same bytes; now it is stored once.
    const retried = await postHook(stack.url, hook.path, body, headers)
    expect(retried.status, retried.text).toBe(200)
    expect(await stored()).toEqual({ events: before.events + 1, runs: before.runs + 1 })
  })

  it('nothing is lost: a signed delivery whose text holds the NUL character is stored and started, the NUL shown as U+FFFD', async () => {
    // PostgreSQL cannot store NUL in text or JSON; refusing the delivery would lose a real event
    // (the platform gives up after its retries), so the intake keeps it with NUL replaced.
    const before = await stored()
    const body = freshBody('Nul\u0000card')
    expect(body).toContain('\\u0000')
    const res = await postHook(stack.url, hook.path, body, {
      'x-trello-webhook': sign(stack, body, hook.callbackUrl),
    })
    expect(res.status, res.text).toBe(200)
    expect(await stored()).toEqual({ events: before.events + 1, runs: before.runs + 1 })
    const run = (await runsOf(stack, sub.id)).find((r) =>
      (r.inputs as { title?: string }).title?.startsWith('Nul'),
    )
    expect((run!.inputs as { title: string }).title).toBe('Nul\ufffdcard')
  })

  it('nothing is lost: a signed delivery holding a lone UTF-16 surrogate is stored and started, shown as U+FFFD', async () => {
    // `\ud800` is valid JSON but no character; PostgreSQL refuses it in JSON, and a 500 would make
    // Trello retry and then give up, losing the event (issue 22, §6).
    const before = await stored()
    const body = freshBody('Lone\ud800card')
    expect(body).toContain('\\ud800')
    const res = await postHook(stack.url, hook.path, body, {
      'x-trello-webhook': sign(stack, body, hook.callbackUrl),
    })
    expect(res.status, res.text).toBe(200)
    expect(await stored()).toEqual({ events: before.events + 1, runs: before.runs + 1 })
    const run = (await runsOf(stack, sub.id)).find((r) =>
      (r.inputs as { title?: string }).title?.startsWith('Lone'),
    )
    expect((run!.inputs as { title: string }).title).toBe('Lone\ufffdcard')
  })

  it('bad signatures and bad shapes: 401 (or 400 after a valid signature), and nothing stored', async () => {
    const before = await stored()
    const body = freshBody('Hostile')
    const good = sign(stack, body, hook.callbackUrl)
    const oneByte = Buffer.from(body)
    oneByte[oneByte.indexOf('Hostile')] = 'h'.charCodeAt(0)
    const reserialised = JSON.stringify(JSON.parse(body), null, 2)
    const signed = (raw: string) => ({ 'x-trello-webhook': sign(stack, raw, hook.callbackUrl) })
    const cases: Array<[string, string | Buffer, Record<string, string>, number]> = [
      ['no signature header', body, {}, 401],
      ['an empty signature header', body, { 'x-trello-webhook': '' }, 401],
      ['a signature that is not base64', body, { 'x-trello-webhook': 'not base64!' }, 401],
      [
        'a wrong signature',
        body,
        { 'x-trello-webhook': sign(stack, 'something else', hook.callbackUrl) },
        401,
      ],
      [
        'a signature over another callback URL',
        body,
        { 'x-trello-webhook': sign(stack, body, `${stack.url}/hooks/${'x'.repeat(32)}`) },
        401,
      ],
      ['a body changed by one byte', oneByte, { 'x-trello-webhook': good }, 401],
      [
        'the body re-serialised under the original signature',
        reserialised,
        { 'x-trello-webhook': good },
        401,
      ],
      [
        'a signature over a re-serialised body',
        body,
        { 'x-trello-webhook': sign(stack, reserialised, hook.callbackUrl) },
        401,
      ],
      ['an empty body, unsigned', '', {}, 401],
      ['non-JSON, unsigned', 'not json', {}, 401],
      ['an empty body, validly signed', '', signed(''), 400],
      ['non-JSON, validly signed', 'not json', signed('not json'), 400],
      ['JSON without action, validly signed', '{"model":{}}', signed('{"model":{}}'), 400],
      [
        'an action without an id, validly signed',
        JSON.stringify({ action: { ...template.action, id: undefined } }),
        signed(JSON.stringify({ action: { ...template.action, id: undefined } })),
        400,
      ],
    ]
    for (const [name, raw, headers, status] of cases) {
      const res = await postHook(stack.url, hook.path, raw, headers)
      expect(res.status, `${name}: ${res.text}`).toBe(status)
    }
    expect(await stored()).toEqual(before)
  })

  it('an unknown token answers 404; a webhook being removed answers 410, so Trello deletes it', async () => {
    const body = freshBody('Nobody')
    expect(
      (
        await postHook(stack.url, `/hooks/${'u'.repeat(32)}`, body, {
          'x-trello-webhook': sign(stack, body, `${stack.url}/hooks/${'u'.repeat(32)}`),
        })
      ).status,
    ).toBe(404)
    expect((await postHook(stack.url, '/hooks/short', body)).status).toBe(404)
    expect((await fetch(`${stack.url}/hooks/${'u'.repeat(32)}`, { method: 'HEAD' })).status).toBe(404)

    // A removal that failed at Trello leaves the webhook delivering; its address answers 410.
    const board = await freshBoard(stack)
    const agent = await createAgent(api, commentingAgent(ada))
    const doomed = await subscribe(api, agent, {
      trigger: 'trello.new_card',
      integration: ada,
      config: { board_ids: [board.id] },
      mapping: CARD_MAPPING,
    })
    const doomedHook = await hookOf(stack, doomed.id)
    const control = trelloControl(stack)
    await control.fault({
      status: 500,
      match: { method: 'DELETE', path: `/1/webhooks/${doomedHook.remote_id}` },
    })
    try {
      expect((await api.post(`/v1/subscriptions/${doomed.id}/deactivate`)).status).toBe(200)
    } finally {
      await control.clearFaults()
    }
    const row = await stack.services.store.db
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', doomedHook.id)
      .executeTakeFirstOrThrow()
    expect(row.status).toBe('remove_failed')
    const signedBody = sign(stack, body, doomedHook.callbackUrl)
    expect(
      (await postHook(stack.url, doomedHook.path, body, { 'x-trello-webhook': signedBody })).status,
    ).toBe(410)
    expect((await fetch(doomedHook.callbackUrl, { method: 'HEAD' })).status).toBe(404)
    // Trello itself: a change on the board is delivered, answered 410, and the webhook is deleted there.
    await personCreatesCard(stack, board.lists[0]!.id, 'Into the void')
    await deliveriesSettled(stack)
    const webhooks = (await control.call('GET', '/webhooks')).body.webhooks
    expect(webhooks.find((w: { id: string }) => w.id === doomedHook.remote_id)).toBeUndefined()
    expect(await runsOf(stack, doomed.id)).toHaveLength(0)
  })

  it('pasted credentials: an unsigned delivery starts its run with the action as Trello has it, not as delivered', async () => {
    // Without the app's secret nothing in the body is signed; only the action id is believed, and the
    // event is built from the action read back (issue 22, §6).
    const grace = await connectTrelloWithToken(stack, 'grace')
    const board = await freshBoard(stack)
    const agent = await createAgent(api, commentingAgent(grace))
    const pasted = await subscribe(api, agent, {
      trigger: 'trello.new_card',
      integration: grace,
      config: { board_ids: [board.id] },
      mapping: CARD_MAPPING,
    })
    const pastedHook = await hookOf(stack, pasted.id)
    await personCreatesCard(stack, board.lists[0]!.id, 'The real name', 'ada')
    await deliveriesSettled(stack)
    await waitFor('the real run', async () => (await runsOf(stack, pasted.id)).length === 1)
    const [delivery] = (await trelloControl(stack).call('GET', `/deliveries?webhook=${pastedHook.remote_id}`))
      .body.deliveries
    const real = JSON.parse(delivery.body)
    expect((await runsOf(stack, pasted.id))[0]!.inputs).toMatchObject({ title: 'The real name' })

    // The same real action id, its content rewritten, under a fresh source so dedupe cannot hide it:
    // the webhook's events are deduplicated per webhook, so remove the first event's record.
    await stack.services.store.db
      .deleteFrom('events')
      .where('source', '=', `webhook:${pastedHook.id}`)
      .where('dedupe_key', '=', real.action.id)
      .execute()
    const forged = structuredClone(real)
    forged.action.data.card.name = 'Forged name'
    const res = await postHook(stack.url, pastedHook.path, JSON.stringify(forged))
    expect(res.status, res.text).toBe(200)
    const runs = await waitFor('the second run', async () => {
      const all = await runsOf(stack, pasted.id)
      return all.length === 2 ? all : undefined
    })
    expect(runs.map((r) => (r.inputs as { title: string }).title).sort()).toEqual([
      'The real name',
      'The real name',
    ])
    // A forged type or author is refused outright.
    const otherType = structuredClone(real)
    otherType.action.type = 'deleteCard'
    expect((await postHook(stack.url, pastedHook.path, JSON.stringify(otherType))).status).toBe(401)
  })
})
