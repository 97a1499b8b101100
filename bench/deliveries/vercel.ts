import { createHmac, randomBytes } from 'node:crypto'
import { SEED } from '../../src/sandboxes/vercel/seed.ts'
import { connectVercel } from '../../test/helpers/vercel.ts'
import { skippedAgentSubscription, type DeliveryFactory } from './define.ts'

/**
 * Vercel's Deployment Failed: the webhook is one a person adds in Vercel, pointing at the
 * subscription's own address with the secret pasted into the subscription; each delivery is a
 * deployment.error event signed as hex HMAC-SHA1 of the body in x-vercel-signature.
 */
export const vercelDeliveries: DeliveryFactory = {
  platform: 'vercel',
  async setUp(service) {
    const integration = (await connectVercel(service)).integrationId!
    const secret = `whsec_bench_${randomBytes(12).toString('hex')}`
    const sub = await skippedAgentSubscription(service, {
      step: { tool: 'vercel.list_deployments', input: { limit: 1 } },
      integration,
      trigger: 'vercel.deployment_failed',
      config: {},
      mapping: { title: '{{ deployment.url }}' },
      extra: { webhook_secret: secret },
    })
    if (!sub.webhook_address) throw new Error('the Vercel subscription has no webhook_address')
    const project = SEED.personalProject
    return {
      subscriptionId: sub.id,
      address: sub.webhook_address,
      make() {
        const id = `evt_${randomBytes(12).toString('hex')}`
        const deployment = `dpl_${randomBytes(12).toString('hex')}`
        const body = JSON.stringify({
          id,
          type: 'deployment.error',
          createdAt: Date.now(),
          region: 'iad1',
          payload: {
            team: null,
            user: { id: SEED.user.id },
            deployment: {
              id: deployment,
              name: project.name,
              url: `${project.name}-${deployment.slice(4, 13)}.vercel.app`,
              meta: {},
            },
            links: {
              deployment: `https://vercel.com/bench/${project.name}/${deployment.slice(4)}`,
              project: `https://vercel.com/bench/${project.name}`,
            },
            target: null,
            project: { id: project.id },
            plan: 'hobby',
            regions: ['iad1'],
          },
        })
        return {
          id,
          body,
          headers: { 'x-vercel-signature': createHmac('sha1', secret).update(body).digest('hex') },
        }
      },
      eventIdOf: (event) => event?.event?.id,
    }
  },
}
