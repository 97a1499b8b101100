import { expect } from 'vitest'
import { describeCrashBurst } from '../helpers/crash-burst.ts'
import { connectVercel, VERCEL, vercelControl } from '../helpers/vercel.ts'

// Crash during a burst of Vercel deliveries (test/helpers/crash-burst.ts): deployments made through
// Vercel's API and failed on the sandbox, Deployment Failed for each through the webhook the user
// added at the subscription's own address with its secret pasted, the service killed and restarted
// inside the sandbox's retry window (src/sandboxes/vercel/delivery.ts: retries after 1 s, 5 s, 30 s).
//
// BURST: 300 deployments, not the 1,000: the Trello file carries the 1,000; this one shows
// the same guarantee holds for Vercel's intake (its own signature, per-subscription address and
// event ids) and keeps the file near 90 s per store. ENGINE_BURST sets another count.
describeCrashBurst('crash during a burst of Vercel deliveries', {
  event: 'failed deployment',
  burst: Number(process.env.ENGINE_BURST ?? 300),
  dbPrefix: 'sy_vercel_tests_burst',
  platform: (sandboxUrl) => {
    const control = vercelControl({ sandboxUrl })
    let token = ''
    const vercelApi = async (path: string, body: unknown) => {
      const res = await fetch(`${sandboxUrl}/vercel${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      const json = await res.json()
      expect(res.status, JSON.stringify(json)).toBe(200)
      return json
    }
    return {
      async setUp(stack, api) {
        // The agent's reads and the burst's deployments are not what is tested: no rate limits.
        expect((await control.rateLimits({ disabled: true })).status).toBe(200)
        token = (await control.call('POST', '/tokens', { user: 'ada' })).body.token
        const integration = (await connectVercel(stack)).integrationId!
        const agent = await api.post('/v1/agents', {
          name: 'Deploy watcher',
          inputs: [{ name: 'deployment_id', type: 'string', required: true }],
          kind: 'steps',
          steps: [{ key: 'list', tool: 'vercel.list_deployments', integration, input: { limit: 1 } }],
          output: {},
        })
        expect(agent.status, agent.text).toBe(201)
        const sub = await api.post(`/v1/agents/${agent.body.id}/subscriptions`, {
          trigger: 'vercel.deployment_failed',
          integration,
          config: {},
          mapping: { deployment_id: '{{ deployment.id }}' },
        })
        expect(sub.status, sub.text).toBe(201)
        const hook = await vercelApi('/v1/webhooks', {
          url: sub.body.webhook_address,
          events: ['deployment.error'],
          projectIds: [VERCEL.personalProject.id],
        })
        expect(
          (await api.call('PATCH', `/v1/subscriptions/${sub.body.id}`, { webhook_secret: hook.secret }))
            .status,
        ).toBe(200)
        const activated = await api.post(`/v1/subscriptions/${sub.body.id}/activate`)
        expect(activated.status, activated.text).toBe(200)
        return sub.body.id as string
      },
      async make(_from, count) {
        return Promise.all(
          Array.from({ length: count }, async () => {
            const deployment = await vercelApi('/v13/deployments', { name: 'ada-blog' })
            const failed = await control.call('POST', `/deployments/${deployment.id}/finish`, {
              state: 'ERROR',
            })
            expect(failed.status, JSON.stringify(failed.body)).toBe(200)
            return deployment.id as string
          }),
        )
      },
      async settled() {
        const res = await control.call('GET', '/deliveries?wait=true&timeout_ms=60000')
        return { settled: res.body.settled, deliveries: res.body.deliveries }
      },
      keyOf: (run) => run.inputs.deployment_id,
    }
  },
})
