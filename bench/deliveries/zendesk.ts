import { createHmac, randomUUID } from 'node:crypto'
import { ACCOUNT_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../../src/platforms/zendesk/webhooks.ts'
import { sampleEvent } from '../../src/platforms/zendesk/triggers/event.ts'
import { connectZendesk } from '../../test/helpers/connect.ts'
import { skippedAgentSubscription, type DeliveryFactory } from './define.ts'

const ADMIN = 'admin@acme.test'

/** The sandbox account's webhooks and a webhook's signing secret, read as the account's admin would. */
async function zendeskApi(sandboxUrl: string, path: string): Promise<any> {
  const minted = await fetch(`${sandboxUrl}/zendesk/_control/accounts/acme/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: ADMIN }),
  })
  const { access_token } = (await minted.json()) as { access_token: string }
  const res = await fetch(`${sandboxUrl}/zendesk/acme/api/v2${path}`, {
    headers: { authorization: `Bearer ${access_token}` },
  })
  if (!res.ok) throw new Error(`Zendesk sandbox ${path}: ${res.status} ${await res.text()}`)
  return res.json()
}

/**
 * Zendesk's New Ticket (the sandbox's `acme` account is on Enterprise, which Zendesk's triggers need):
 * activation creates the integration's webhook at the sandbox, whose address and signing secret are
 * read back from there; each delivery is a ticket.created event signed as base64 HMAC-SHA256 of the
 * timestamp and the body, with the account header the webhook sends.
 */
export const zendeskDeliveries: DeliveryFactory = {
  platform: 'zendesk',
  async setUp(service, sandboxUrl) {
    const integration = (await connectZendesk(service)).integrationId!
    const sub = await skippedAgentSubscription(service, {
      step: { tool: 'zendesk.list_tickets', input: {} },
      integration,
      trigger: 'zendesk.new_ticket',
      config: {},
      mapping: { title: '{{ ticket.subject }}' },
    })
    const { webhooks } = (await zendeskApi(sandboxUrl, '/webhooks')) as {
      webhooks: Array<{ id: string; endpoint: string }>
    }
    const hook = webhooks.find((w) => w.endpoint.startsWith(service.url))
    if (!hook) throw new Error('the Zendesk subscription made no webhook at the sandbox')
    const secret: string = (await zendeskApi(sandboxUrl, `/webhooks/${hook.id}/signing_secret`))
      .signing_secret.secret
    const template = sampleEvent(
      'ticket.created',
      { current: { status: 'NEW' } },
      { status: 'NEW', assignee_id: null },
    )
    return {
      subscriptionId: sub.id,
      address: hook.endpoint,
      make() {
        const id = randomUUID()
        const body = JSON.stringify({
          ...template,
          id,
          time: new Date().toISOString(),
          detail: { ...template.detail, subject: `ticket ${id}` },
        })
        const timestamp = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')
        return {
          id,
          body,
          headers: {
            [SIGNATURE_HEADER]: createHmac('sha256', secret)
              .update(timestamp + body)
              .digest('base64'),
            [TIMESTAMP_HEADER]: timestamp,
            [ACCOUNT_HEADER]: 'acme',
          },
        }
      },
      eventIdOf: (event) => event?.event?.id,
    }
  },
}
