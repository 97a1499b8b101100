import type { SubscriptionStatus, WebhookStatus } from '../store/schema.ts'
import type { HealthFact } from './health-verdict.ts'
import type { DeliveryFacts } from './trigger-events.ts'

/** Why the service paused a subscription (docs/triggers.md, "When an integration, a plan or a user goes"). */
export type PausedReason = 'integration_disconnected' | 'plan_required'

/** What is known of a subscription, from storage and (for a health check) from the platform, asked live. */
export interface SubscriptionState {
  status: SubscriptionStatus
  paused_reason: string | null
  platformTitle: string
  mode: 'instant' | 'polled'
  /** Managed instant triggers need a webhook of Switchyard's making; unmanaged ones one the user adds. */
  managed: boolean
  /** null: the integration was deleted. */
  integration: { name: string; status: string } | null
  webhooks: Array<{
    managed: boolean
    status: WebhookStatus
    remote_id: string | null
    /** Asked live: null when not asked or not answerable. */
    present: boolean | null
    last_error: string | null
    secret_set?: boolean
  }>
  last_error: string | null
}

/** The facts the subscription's own state gives; others (deliveries refused, events skipped) are added beside them. */
export function subscriptionFacts(s: SubscriptionState): HealthFact[] {
  const facts: HealthFact[] = []
  const name = s.integration?.name ?? 'its integration'
  if (s.status === 'paused') facts.push(pausedFact(s.paused_reason, name))
  if (s.status === 'inactive')
    facts.push({
      code: 'inactive',
      severity: 'paused',
      message: 'Not active: activate it to start runs from events.',
    })
  const live = s.status === 'active' ? 'failing' : 'warning'
  if (!s.integration)
    facts.push({
      code: 'integration_deleted',
      severity: live,
      message: 'Its integration was deleted: choose another integration for this trigger.',
    })
  else if (s.integration.status === 'disconnected' && s.paused_reason !== 'integration_disconnected')
    facts.push({
      code: 'integration_disconnected',
      severity: live,
      message: `${name} is disconnected, so no event can reach this trigger: reconnect it.`,
    })
  else if (s.integration.status === 'needs_reconnection')
    facts.push({
      code: 'integration_needs_reconnection',
      severity: live,
      message: `${s.platformTitle} refused ${name}'s credentials: reconnect it.`,
    })
  for (const hook of s.webhooks) {
    if (hook.status === 'remove_failed' || hook.status === 'removing')
      facts.push({
        code: 'webhook_remove_failed',
        severity: 'warning',
        message: `Removing the webhook ${hook.remote_id ?? ''} at ${s.platformTitle} has not succeeded yet${hook.last_error ? ` (${hook.last_error})` : ''}; it is retried, and its address answers 410 meanwhile.`,
      })
    else if (hook.managed && hook.present === false && s.status === 'active')
      facts.push({
        code: 'webhook_missing',
        severity: 'failing',
        message: `${s.platformTitle} no longer has this trigger's webhook ${hook.remote_id ?? ''}: deactivate and activate the trigger to make it again.`,
      })
    else if (hook.managed && hook.last_error && s.status === 'active')
      facts.push({ code: 'webhook_check_failed', severity: 'warning', message: hook.last_error })
    if (!hook.managed && hook.secret_set === false && s.status === 'active')
      facts.push({
        code: 'webhook_secret_missing',
        severity: 'failing',
        message: `No secret is set, so deliveries from ${s.platformTitle} are refused: paste the webhook's secret.`,
      })
  }
  const usable = s.webhooks.some((h) => h.managed && (h.status === 'active' || h.status === 'pending'))
  if (s.status === 'active' && s.mode === 'instant' && s.managed && !usable)
    facts.push({
      code: 'webhook_missing',
      severity: 'failing',
      message: `No webhook at ${s.platformTitle} sends this trigger's events: deactivate and activate it to make one.`,
    })
  if (s.last_error)
    facts.push({
      code: 'last_error',
      severity: s.status === 'active' ? 'failing' : 'warning',
      message: s.last_error,
    })
  return facts
}

function pausedFact(reason: string | null, name: string): HealthFact {
  if (reason === 'integration_disconnected')
    return {
      code: 'integration_disconnected',
      severity: 'paused',
      message: `Paused because ${name} was disconnected: reconnect it, then resume its triggers.`,
    }
  if (reason === 'plan_required')
    return {
      code: 'plan_required',
      severity: 'paused',
      message:
        "Paused because the account's plan no longer includes this trigger: once the plan includes it again, resume it (Resume on the Triggers tab, switchyard subscriptions resume --plan, or Activate).",
    }
  return { code: reason ?? 'paused', severity: 'paused', message: 'Paused: activate it to resume.' }
}

/** What a health check knows beyond the stored state: the recent deliveries and the last event. */
export interface DeliveryState {
  status: SubscriptionStatus
  platformTitle: string
  integrationName: string
  start_on_own_changes: boolean
  /** Whether the user added the platform's webhook by hand, so its address is theirs to check. */
  unmanaged: boolean
  last_event_at: Date | null
  deliveries: DeliveryFacts
}

const at = (d: Date | string) => new Date(d).toISOString().replace(/\.\d{3}Z$/, 'Z')
const newer = (when: Date | string, than: Date | null) => !than || new Date(when) >= new Date(than)

/**
 * The facts recent deliveries give (issue 22, §5): refusals and the loop guard's skips speak louder
 * than silence ("no event yet" was shown while every delivery was refused for a wrong secret), and
 * only until an event arrives after them.
 */
export function deliveryFacts(s: DeliveryState): HealthFact[] {
  const facts: HealthFact[] = []
  const { refused, skipped } = s.deliveries
  if (refused && newer(refused.last_at, s.last_event_at)) {
    const n = refused.count === 1 ? 'One delivery' : `${refused.count} deliveries`
    facts.push({
      code: 'deliveries_refused',
      severity: s.status === 'active' ? 'failing' : 'warning',
      message: `${n} from ${s.platformTitle} ${refused.count === 1 ? 'was' : 'were'} refused, the last at ${at(refused.last_at)}: ${refused.reason}.`,
    })
  }
  if (skipped && !s.start_on_own_changes && newer(skipped.last_at, s.last_event_at)) {
    const one = skipped.count === 1
    facts.push({
      code: 'events_skipped',
      severity: 'warning',
      message: `${one ? 'One event' : `${skipped.count} events`} started nothing, the last at ${at(skipped.last_at)}: made by ${s.integrationName} itself, the integration's own account, so the loop guard skipped ${one ? 'it' : 'them'}. To start on such changes, tick “Also start on changes made by this integration’s own account” in the trigger’s settings (${skipped.option}).`,
    })
  }
  if (s.status === 'active' && s.unmanaged && !s.last_event_at && !refused)
    facts.push({
      code: 'no_event_yet',
      severity: 'warning',
      message: `No event has arrived yet. Check that ${s.platformTitle} has a webhook sending to the address shown here, for the events this trigger watches.`,
    })
  return facts
}
