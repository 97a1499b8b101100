import type { Selectable } from 'kysely'
import { notFound } from '../errors.ts'
import type { Db } from '../store/database.ts'
import type { TriggerDeliveriesTable } from '../store/schema.ts'
import type { DeliveryLog, DeliveryOutcome, SubscriptionOutcome } from './delivery-log.ts'

type Row = Selectable<TriggerDeliveriesTable>

/** One recent delivery as one subscription saw it (`GET /v1/subscriptions/{id}/events`). */
export interface SubscriptionEvent {
  id: string
  received_at: Date
  /** `webhook` for a delivery, `poll` for a poll. */
  via: 'webhook' | 'poll'
  webhook_id: string | null
  outcome: DeliveryOutcome
  reason: string | null
  event_type: string | null
  /** The platform's id of the event (its dedupe key), where it had one. */
  event_id: string | null
  run_id: string | null
}

/** One recent delivery to a webhook, with its outcome for each subscription on it (`GET /v1/webhooks/{id}/events`). */
export interface WebhookEvent {
  id: string
  received_at: Date
  outcome: DeliveryOutcome
  reason: string | null
  event_type: string | null
  event_id: string | null
  subscriptions: Array<{ subscription_id: string } & SubscriptionOutcome>
}

/** What the recent deliveries say about one subscription, for its health. */
export interface DeliveryFacts {
  /** How many recent deliveries (and polls) these counts cover. */
  recent: number
  counts: Record<DeliveryOutcome, number>
  /** Deliveries refused: how many, the last one's time and reason (which says what to do). */
  refused: { count: number; last_at: Date; reason: string } | null
  /** Events the loop guard left: how many, the last one's time, and the option that changes it. */
  skipped: { count: number; last_at: Date; reason: string; option: 'start_on_own_changes' } | null
  /** The newest poll, for polled triggers. */
  last_poll_at: Date | null
}

const OUTCOMES: DeliveryOutcome[] = [
  'accepted',
  'duplicate',
  'unmatched',
  'skipped',
  'refused',
  'failed',
  'polled',
]

const outcomesOf = (row: Row) => row.subscriptions as Record<string, SubscriptionOutcome>

export function sourcesOf(subscriptionId: string, webhookIds: string[]): string[] {
  return [...webhookIds.map((id) => `webhook:${id}`), `poll:${subscriptionId}`]
}

/** A delivery as one subscription saw it: its own outcome, else the delivery's as a whole. */
function forSubscription(row: Row, subscriptionId: string): SubscriptionEvent {
  const own = outcomesOf(row)[subscriptionId]
  const whole = row.outcome as DeliveryOutcome
  const webhook = row.source.startsWith('webhook:')
  const shared = whole === 'refused' || whole === 'failed' || whole === 'polled'
  return {
    id: row.id,
    received_at: row.received_at,
    via: webhook ? 'webhook' : 'poll',
    webhook_id: webhook ? row.source.slice('webhook:'.length) : null,
    outcome: own?.outcome ?? (shared ? whole : 'unmatched'),
    reason: own ? (own.reason ?? null) : shared ? row.reason : 'this trigger was not active when it arrived',
    event_type: row.event_type,
    event_id: row.event_key,
    run_id: own?.run_id ?? null,
  }
}

/**
 * The events list of a subscription or a webhook, and the facts its health reports from them
 * (docs/triggers.md, "When a trigger does not fire"): each recent delivery with what became of it.
 */
export class TriggerEvents {
  constructor(
    private readonly db: Db,
    private readonly log: DeliveryLog,
  ) {}

  async ofSubscription(subscriptionId: string, webhookIds: string[], limit?: number) {
    const rows = await this.log.recent(sourcesOf(subscriptionId, webhookIds), limit)
    return rows.map((row) => forSubscription(row, subscriptionId))
  }

  async ofWebhook(userId: string, webhookId: string, limit?: number): Promise<WebhookEvent[]> {
    const hook = await this.db
      .selectFrom('webhooks')
      .select('id')
      .where('id', '=', webhookId)
      .where('user_id', '=', userId)
      .executeTakeFirst()
    if (!hook) throw notFound('webhook')
    const rows = await this.log.recent([`webhook:${hook.id}`], limit)
    return rows.map((row) => ({
      id: row.id,
      received_at: row.received_at,
      outcome: row.outcome as DeliveryOutcome,
      reason: row.reason,
      event_type: row.event_type,
      event_id: row.event_key,
      subscriptions: Object.entries(outcomesOf(row)).map(([id, o]) => ({ subscription_id: id, ...o })),
    }))
  }

  async facts(subscriptionId: string, webhookIds: string[]): Promise<DeliveryFacts> {
    const events = await this.ofSubscription(subscriptionId, webhookIds)
    const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<DeliveryOutcome, number>
    for (const e of events) counts[e.outcome]++
    const refused = events.filter((e) => e.outcome === 'refused')
    const skipped = events.filter((e) => e.outcome === 'skipped')
    const lastPoll = events.find((e) => e.via === 'poll')
    return {
      recent: events.length,
      counts,
      refused: refused.length
        ? { count: refused.length, last_at: refused[0]!.received_at, reason: refused[0]!.reason ?? '' }
        : null,
      skipped: skipped.length
        ? {
            count: skipped.length,
            last_at: skipped[0]!.received_at,
            reason: skipped[0]!.reason ?? '',
            option: 'start_on_own_changes',
          }
        : null,
      last_poll_at: lastPoll?.received_at ?? null,
    }
  }
}
