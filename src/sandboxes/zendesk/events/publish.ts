import type { Account, Audit, Ticket } from '../model.ts'
import type { ZendeskSandbox } from '../sandbox.ts'
import { eventsOfWrite } from './payloads.ts'

/**
 * Sends the events of one ticket write to every active webhook of the account subscribed to their
 * type, one invocation per (webhook, event). Runs synchronously after the write, so `detail` is the
 * ticket as that write left it.
 */
export function publishWrite(sandbox: ZendeskSandbox, account: Account, ticket: Ticket, audit: Audit): void {
  const hooks = [...account.webhooks.values()].filter(
    (w) => w.status === 'active' && w.subscriptions.length > 0,
  )
  if (hooks.length === 0) return
  for (const event of eventsOfWrite(account, ticket, audit, sandbox.now())) {
    const body = JSON.stringify(event)
    for (const hook of hooks) {
      if (!hook.subscriptions.includes(event.type)) continue
      sandbox.deliveries.enqueue({
        account: account.subdomain,
        account_id: account.id,
        webhook_id: hook.id,
        event_id: event.id,
        event_type: event.type,
        endpoint: hook.endpoint,
        body,
        custom_headers: { ...hook.customHeaders },
      })
    }
  }
}
