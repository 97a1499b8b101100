import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from '../helpers/test-stack.ts'
import { client } from '../helpers/stack.ts'
import { connectAda, notifiedAgentSubscribed, waitFor } from '../helpers/trello-engine.ts'
import { statementOwner } from '../../src/core/store/statement-owner.ts'

// Issue 22, §2: the trigger poller claimed about four times a second with no polled subscription at
// all. It now sleeps until the earliest next poll, or, with nothing polled, until the change feed
// says a polled subscription became due (activated, or "Poll now") on any instance.
describe('the trigger poller', () => {
  let stack: TestStack

  beforeAll(async () => {
    stack = await startTestStack({})
  }, 120_000)
  afterAll(async () => stack?.close())

  it('makes no claim while nothing is polled, and polls a newly activated polled subscription at once', async () => {
    const poller = stack.services.poller
    // Each lane claims once as it starts, finds nothing, and goes idle.
    await waitFor('the lanes to look once', async () => poller.claims >= 4)
    const before = poller.claims
    // Longer than the lanes' old tick (1 s) twice over: they claimed in it before.
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    expect(poller.claims).toBe(before)

    const api = client(stack, stack.apiKey)
    const ada = await connectAda(stack)
    const { sub } = await notifiedAgentSubscribed(api, ada)
    // Polled at once: its first poll notes where to start. An idle lane would sleep a minute.
    await waitFor('the first poll of the activated subscription', async () => {
      const row = await stack.services.store.db
        .selectFrom('subscriptions')
        .select('poll_cursor')
        .where('id', '=', sub.id)
        .executeTakeFirstOrThrow()
      return row.poll_cursor !== null
    })
    expect(poller.claims).toBeGreaterThan(before)
  }, 120_000)

  // On the embedded store each owner's statements wait in a line of their own (docs/scaling.md, "One
  // user's burst"); a poll made as no one's waited behind every other owner's no-owner work.
  it("a subscription's poll works as its owner, so its statements wait in that owner's line", async () => {
    const api = client(stack, stack.apiKey)
    const ada = await connectAda(stack)
    const { sub } = await notifiedAgentSubscribed(api, ada, 'Notified as its owner')
    const { user_id: owner } = await stack.services.store.db
      .selectFrom('subscriptions')
      .select('user_id')
      .where('id', '=', sub.id)
      .executeTakeFirstOrThrow()
    const registered = stack.services.triggers.get('trello.new_notification')!
    const poll = registered.trigger.poll!
    const seen: Array<string | undefined> = []
    registered.trigger.poll = (...args) => {
      seen.push(statementOwner())
      return poll(...args)
    }
    try {
      const before = seen.length
      expect((await api.post(`/v1/subscriptions/${sub.id}/poll`, {})).status).toBeLessThan(300)
      await waitFor('a poll after Poll now', async () => seen.length > before)
      expect(new Set(seen)).toEqual(new Set([owner]))
    } finally {
      registered.trigger.poll = poll
    }
  }, 120_000)
})
