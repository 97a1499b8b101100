import { expect } from 'vitest'
import { describeCrashBurst } from '../helpers/crash-burst.ts'
import { connectTrelloOAuth } from '../helpers/connect-trello.ts'
import { CARD_MAPPING, createAgent, subscribe } from '../helpers/trello-engine.ts'
import { controlCaller } from '../helpers/stack.ts'

// Crash during a burst of Trello deliveries (test/helpers/crash-burst.ts): cards made by a member
// in the sandbox, New Card for each, the service killed and restarted inside the sandbox's retry
// window (retries after 1 s, 5 s and 30 s, as Trello's).
//
// BURST: the 1,000 cards; ENGINE_BURST sets another count.
describeCrashBurst('crash during a burst of Trello deliveries', {
  event: 'card',
  burst: Number(process.env.ENGINE_BURST ?? 1000),
  dbPrefix: 'sy_intake_tests_burst',
  platform: (sandboxUrl) => {
    const control = controlCaller(`${sandboxUrl}/trello/_control`)
    let list = ''
    return {
      async setUp(stack, api) {
        await control('PUT', '/rate-limits', { disabled: true }) // the agent's reads are not what is tested
        const ada = (await connectTrelloOAuth(stack)).integrationId!
        const board = (await control('POST', '/boards', { name: 'Burst', owner: 'ada', members: ['grace'] }))
          .body.board
        list = board.lists[0].id
        const agent = await createAgent(api, {
          name: 'Reader',
          inputs: [
            { name: 'title', type: 'string', required: true },
            { name: 'card_id', type: 'string', required: true },
          ],
          kind: 'steps',
          // Skipped: a read per run would make 1,000 runs wait on the token's rate budget (100 requests
          // per 10 s, which Switchyard keeps even with the sandbox's own limit off) for over 100 s; what
          // this test defends is that each delivery starts exactly one run, not what the run does.
          steps: [
            {
              key: 'card',
              tool: 'trello.get_card',
              integration: ada,
              input: { card_id: '{{ inputs.card_id }}' },
              condition: 'false',
            },
          ],
        })
        return (
          await subscribe(api, agent, {
            trigger: 'trello.new_card',
            integration: ada,
            config: { board_ids: [board.id] },
            mapping: CARD_MAPPING,
          })
        ).id
      },
      async make(from, count) {
        const created = await Promise.all(
          Array.from({ length: count }, (_, i) =>
            control('POST', '/act', {
              member: 'grace',
              method: 'POST',
              path: '/1/cards',
              params: { idList: list, name: `Burst ${from + i}` },
            }),
          ),
        )
        return created.map((c) => {
          expect(c.body.status, JSON.stringify(c.body)).toBe(200)
          return c.body.body.id as string
        })
      },
      async settled(serviceUrl) {
        const res = await control('GET', '/deliveries?settled=1&timeout_ms=60000')
        return {
          settled: res.body.settled,
          deliveries: res.body.deliveries.filter((d: any) => d.callback_url.startsWith(serviceUrl)),
        }
      },
      keyOf: (run) => run.inputs.card_id,
    }
  },
})
