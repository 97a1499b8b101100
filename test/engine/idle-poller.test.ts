import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from '../helpers/test-stack.ts'
import { client } from '../helpers/stack.ts'
import { connectAda, notifiedAgentSubscribed, waitFor } from '../helpers/trello-engine.ts'

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
})
