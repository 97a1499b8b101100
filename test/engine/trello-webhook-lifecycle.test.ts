import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import type { TestStack } from '../helpers/test-stack.ts'
import { trello } from '../../src/platforms/trello/platform.ts'
import {
  CARD_MAPPING,
  commentingAgent,
  createAgent,
  freshBoard,
  hookOf,
  sandboxHooks,
  subscribe,
  waitFor,
  type Api,
  trelloEngineSuite,
} from '../helpers/trello-engine.ts'
import { triggerContext } from '../helpers/trello-triggers.ts'
import { trelloControl } from '../helpers/trello.ts'

// The life of a managed webhook (docs/triggers.md, "One webhook, many subscriptions"): made by the
// first active subscription on a board, kept while one still needs it, removed by the last, and a
// removal that fails is shown and retried until Trello no longer has it.
describe('Trello webhooks follow their subscriptions', () => {
  let stack: TestStack, api: Api, ada: string
  trelloEngineSuite((engine) => {
    ;({ stack, api, ada } = engine)
  })

  const onBoard = (agent: string, board: string, trigger = 'trello.new_card') =>
    subscribe(api, agent, {
      trigger,
      integration: ada,
      config: { board_ids: [board] },
      mapping: CARD_MAPPING,
    })
  const hookRow = (id: string) =>
    stack.services.store.db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst()

  it('deactivating one of two keeps the webhook; the last deactivation deletes it at Trello', async () => {
    const board = await freshBoard(stack)
    const agent = await createAgent(api, commentingAgent(ada))
    const one = await onBoard(agent, board.id)
    const two = await onBoard(agent, board.id, 'trello.card_updated')
    const hook = await hookOf(stack, one.id)
    expect(await sandboxHooks(stack, board.id)).toHaveLength(1)

    expect((await api.post(`/v1/subscriptions/${one.id}/deactivate`)).body.status).toBe('inactive')
    expect((await sandboxHooks(stack, board.id)).map((w) => w.id)).toEqual([hook.remote_id])
    expect((await api.get(`/v1/subscriptions/${one.id}/health`)).body.webhooks).toEqual([])
    expect((await api.get(`/v1/subscriptions/${two.id}/health`)).body.webhooks).toMatchObject([
      { remote_id: hook.remote_id, status: 'active', present: true },
    ])

    await api.post(`/v1/subscriptions/${two.id}/deactivate`)
    expect(await sandboxHooks(stack, board.id)).toEqual([])
    expect(await hookRow(hook.id)).toBeUndefined()
    // Activating again makes a new one, at a new address.
    await api.post(`/v1/subscriptions/${two.id}/activate`)
    const again = await hookOf(stack, two.id)
    expect(again.token).not.toBe(hook.token)
    expect((await sandboxHooks(stack, board.id)).map((w) => w.id)).toEqual([again.remote_id])
  })

  it('a failed removal is recorded, shown in health, and retried until the webhook is gone', async () => {
    const board = await freshBoard(stack)
    const agent = await createAgent(api, commentingAgent(ada))
    const sub = await onBoard(agent, board.id)
    const hook = await hookOf(stack, sub.id)
    const control = trelloControl(stack)
    await control.fault({ status: 503, match: { method: 'DELETE', path: `/1/webhooks/${hook.remote_id}` } })
    const deactivated = await api.post(`/v1/subscriptions/${sub.id}/deactivate`)
    expect(deactivated.status, deactivated.text).toBe(200)
    expect(deactivated.body.status).toBe('inactive')

    const health = (await api.get(`/v1/subscriptions/${sub.id}/health`)).body
    expect(health.webhooks).toHaveLength(1)
    expect(health.webhooks[0]).toMatchObject({
      remote_id: hook.remote_id,
      status: 'remove_failed',
      present: true,
    })
    expect(health.webhooks[0].last_error).toMatch(/503|fail/i)
    expect((await sandboxHooks(stack, board.id)).map((w) => w.id)).toEqual([hook.remote_id])

    // Still failing: the retry records another attempt and keeps the webhook listed.
    const due = () =>
      stack.services.store.db
        .updateTable('webhooks')
        .set({ cleanup_at: new Date(Date.now() - 1000) })
        .where('id', '=', hook.id)
        .execute()
    await due() // the backoff's first wait, passed
    await stack.services.webhooks.retryCleanups()
    expect(await hookRow(hook.id)).toMatchObject({ status: 'remove_failed', cleanup_attempts: 2 })

    await control.clearFaults()
    await due()
    await waitFor('the retried removal', async () => {
      await stack.services.webhooks.retryCleanups()
      return (await hookRow(hook.id)) === undefined
    })
    expect(await sandboxHooks(stack, board.id)).toEqual([])
    expect((await api.get(`/v1/subscriptions/${sub.id}/health`)).body.webhooks).toEqual([])
  })

  it('deleting the agent deletes its subscriptions and their webhooks', async () => {
    const board = await freshBoard(stack)
    const other = await freshBoard(stack)
    const agent = await createAgent(api, commentingAgent(ada))
    const subs = [
      await onBoard(agent, board.id),
      await onBoard(agent, board.id, 'trello.card_moved'),
      await onBoard(agent, other.id),
    ]
    const hooks = await Promise.all(subs.map((s) => hookOf(stack, s.id)))
    expect(new Set(hooks.map((h) => h.id)).size).toBe(2)

    expect((await api.delete(`/v1/agents/${agent}`)).status).toBe(204)
    expect(await sandboxHooks(stack, board.id)).toEqual([])
    expect(await sandboxHooks(stack, other.id)).toEqual([])
    for (const h of hooks) expect(await hookRow(h.id)).toBeUndefined()
    for (const s of subs) expect((await api.get(`/v1/subscriptions/${s.id}`)).status).toBe(404)
  })

  it('deleting the agent while Trello refuses the removal leaves the webhook to the retrier', async () => {
    const board = await freshBoard(stack)
    const agent = await createAgent(api, commentingAgent(ada))
    const sub = await onBoard(agent, board.id)
    const hook = await hookOf(stack, sub.id)
    const control = trelloControl(stack)
    await control.fault({ status: 500, match: { method: 'DELETE', path: `/1/webhooks/${hook.remote_id}` } })
    expect((await api.delete(`/v1/agents/${agent}`)).status).toBe(204)
    expect((await hookRow(hook.id))?.status).toBe('remove_failed')
    await control.clearFaults()
    await stack.services.store.db
      .updateTable('webhooks')
      .set({ cleanup_at: new Date(Date.now() - 1000) })
      .where('id', '=', hook.id)
      .execute()
    await stack.services.webhooks.retryCleanups()
    expect(await hookRow(hook.id)).toBeUndefined()
    expect(await sandboxHooks(stack, board.id)).toEqual([])
  })

  it('a webhook made at Trello but not recorded is removed by the retrier, never left delivering to an unknown address', async () => {
    const db = stack.services.store.db
    const board = await freshBoard(stack)
    const agent = await createAgent(api, commentingAgent(ada))
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
    // The database refuses to record the webhook as active, after Trello made it.
    await sql`create or replace function lifecycle_test_refuse() returns trigger language plpgsql as $$
      begin raise exception 'recording the webhook failed (test)'; end $$`.execute(db)
    await sql
      .raw(
        `create trigger lifecycle_test_refuse before update on webhooks for each row
      when (new.integration_id = '${ada}' and new.status = 'active') execute function lifecycle_test_refuse()`,
      )
      .execute(db)
    try {
      const refused = await api.post(`/v1/subscriptions/${sub.id}/activate`)
      expect(refused.status).toBeGreaterThanOrEqual(500)
      expect((await api.get(`/v1/subscriptions/${sub.id}`)).body.status).toBe('inactive')
      // The retrier may already have run (the poller ticks every second). It removes the webhook at
      // Trello before its row, so the row is read first: while the row is there it names the remote
      // webhook for removal, and once it is gone, so is the webhook at Trello.
      const row = await db
        .selectFrom('webhooks')
        .selectAll()
        .where('integration_id', '=', ada)
        .where('model_key', '=', board.id)
        .executeTakeFirst()
      const remote = await sandboxHooks(stack, board.id)
      if (row) {
        expect(row).toMatchObject({ status: 'remove_failed', integration_id: ada })
        expect(remote.map((h) => h.id)).toEqual(remote.length ? [row.remote_id] : [])
      } else {
        expect(remote).toEqual([])
      }
    } finally {
      await sql`drop trigger if exists lifecycle_test_refuse on webhooks`.execute(db)
      await sql`drop function if exists lifecycle_test_refuse()`.execute(db)
    }
    await stack.services.webhooks.retryCleanups()
    expect(
      await db
        .selectFrom('webhooks')
        .select('id')
        .where('integration_id', '=', ada)
        .where('model_key', '=', board.id)
        .execute(),
    ).toEqual([])
    expect(await sandboxHooks(stack, board.id)).toEqual([])
    // Activating again works as usual.
    expect((await api.post(`/v1/subscriptions/${sub.id}/activate`)).status).toBe(200)
    expect(await sandboxHooks(stack, board.id)).toHaveLength(1)
  })

  it('"already exists" at Trello is adopted: subscribing again at a stored address keeps the same webhook', async () => {
    // Each activation's address carries a new token, so the engine meets Trello's "already exists"
    // only when a webhook it made is asked for again at the same address (an answer lost on the way back).
    const board = await freshBoard(stack)
    const agent = await createAgent(api, commentingAgent(ada))
    const sub = await onBoard(agent, board.id)
    const hook = await hookOf(stack, sub.id)
    const ctx = await triggerContext(stack, ada)
    const adopted = await trello.webhooks!.subscribe!(ctx, {
      modelKey: board.id,
      callbackUrl: hook.callbackUrl,
      description: 'Switchyard',
    })
    expect(adopted.remoteId).toBe(hook.remote_id)
    expect(await sandboxHooks(stack, board.id)).toHaveLength(1)
  })
})
