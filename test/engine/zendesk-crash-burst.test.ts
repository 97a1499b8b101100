import { expect } from 'vitest'
import { describeCrashBurst } from '../helpers/crash-burst.ts'
import { connectZendesk } from '../helpers/connect.ts'
import { zendeskControl } from '../helpers/stack.ts'
import { ZENDESK_AGENT } from '../helpers/zendesk-triggers.ts'

// Crash during a burst of Zendesk deliveries (test/helpers/crash-burst.ts): tickets made by a person
// in the sandbox, New Ticket Created for each, the service killed and restarted inside the sandbox's
// retry window (retries after 1 s, 5 s and 30 s, as Zendesk's).
//
// BURST: 300 tickets, not the 1,000: the Trello file carries the 1,000; this one shows the
// same guarantee holds for Zendesk's intake (its own signature, dedupe key and shared webhook) and
// keeps the file near 90 s per store on the shared 2-core machine. ENGINE_BURST sets another count.
describeCrashBurst('crash during a burst of Zendesk deliveries', {
  event: 'ticket',
  burst: Number(process.env.ENGINE_BURST ?? 300),
  dbPrefix: 'sy_zendesk_tests_burst',
  platform: (sandboxUrl) => {
    const control = zendeskControl({ sandboxUrl })
    return {
      async setUp(stack, api) {
        // The agent's reads are not what is tested: the account's rate limit is out of the way.
        expect(
          (await control.call('PATCH', '/accounts/acme', { rate_limit_per_minute: 1_000_000 })).status,
        ).toBe(200)
        const integration = (await connectZendesk(stack)).integrationId!
        const agent = await api.post('/v1/agents', {
          name: 'Ticket reader',
          inputs: [{ name: 'ticket_id', type: 'number', required: true }],
          kind: 'steps',
          steps: [
            {
              key: 'look',
              tool: 'zendesk.get_ticket',
              integration,
              input: { ticket_id: '{{ inputs.ticket_id }}' },
            },
          ],
          output: {},
        })
        expect(agent.status, agent.text).toBe(201)
        const sub = await api.post(`/v1/agents/${agent.body.id}/subscriptions`, {
          trigger: 'zendesk.new_ticket',
          integration,
          config: {},
          mapping: { ticket_id: '{{ ticket.id }}' },
        })
        expect(sub.status, sub.text).toBe(201)
        const activated = await api.post(`/v1/subscriptions/${sub.body.id}/activate`)
        expect(activated.status, activated.text).toBe(200)
        return sub.body.id as string
      },
      async make(from, count) {
        const made = await Promise.all(
          Array.from({ length: count }, (_, i) =>
            control.call('POST', '/accounts/acme/act', {
              email: ZENDESK_AGENT,
              method: 'POST',
              path: '/api/v2/tickets.json',
              body: { ticket: { subject: `Burst ${from + i}`, comment: { body: 'One of many' } } },
            }),
          ),
        )
        return made.map((m) => {
          expect(m.body.status, JSON.stringify(m.body)).toBeLessThan(300)
          return String(m.body.body.ticket.id)
        })
      },
      async settled() {
        const res = await control.call('GET', '/deliveries?account=acme&settled=1&timeout_ms=60000')
        return { settled: res.body.settled, deliveries: res.body.deliveries }
      },
      keyOf: (run) => String(run.inputs.ticket_id),
    }
  },
})
