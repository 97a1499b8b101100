import { sql } from 'kysely'
import { Webhook } from 'standardwebhooks'
import { fetch } from 'undici'
import type { Sealer } from '../connections/crypto.ts'
import { AddressRefused, reachable, type AgentNetworks } from '../http/public-only.ts'
import { newId, randomToken } from '../ids.ts'
import type { Db } from '../store/database.ts'

/**
 * Waits before each try: at once, then Standard Webhooks' early steps (5 s, 5 min, 30 min, 2 h). A
 * person is waiting on the other side, so the tries stop well inside the approval's day.
 */
export const APPROVAL_WEBHOOK_SCHEDULE_MS = [0, 5_000, 300_000, 1_800_000, 7_200_000]
const ATTEMPT_TIMEOUT_MS = 10_000
/** A claimed try belongs to its instance this long; one that died holding it frees it then. */
const LEASE_MS = 60_000
/** How often an idle instance looks for tries that came due elsewhere (another instance, before a restart). */
const POLL_MS = 5_000
const BATCH = 10

export type WebhookScope = 'mine' | 'installation'
/** The installation's webhook is stored under this owner; a user's under their id. */
export const INSTALLATION = '*'

export interface DeliveryOutcome {
  approval_id: string
  scope: WebhookScope
  status: number | null
  error?: string
  attempt: number
}

interface Claimed {
  id: string
  approval_id: string
  owner: string
  body: string
  attempts: number
}

/**
 * The approval webhook's deliveries, kept as rows (docs/model-agents.md, "Telling an outside
 * system"): each is claimed with a lease before it is sent, so two instances never both send one
 * try; a failed try is put back with its next time from the schedule, and a restart or another
 * instance picks up where this one stopped. Every try of a delivery carries the row's id as its
 * `webhook-id`, so the receiver can drop a repeat. The address and secret are read from the
 * webhook when sending; a row holds neither.
 */
export class ApprovalWebhookOutbox {
  /** Told of each delivery's last try (tests and logs); never given the address or the secret. */
  onDelivered: (outcome: DeliveryOutcome) => void = () => {}
  private readonly holder = randomToken(12)
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  private again = false
  private stopped = true

  constructor(
    private readonly db: Db,
    private readonly sealer: Sealer,
    private readonly networks: AgentNetworks,
    private readonly scheduleMs: readonly number[] = APPROVAL_WEBHOOK_SCHEDULE_MS,
  ) {}

  /** Stores one delivery per webhook owner, due now, and sends them at once when started. */
  async enqueue(approvalId: string, owners: readonly string[], body: string): Promise<void> {
    if (!owners.length) return
    await this.db
      .insertInto('approval_webhook_deliveries')
      .values(
        owners.map((owner) => ({
          id: newId('msg'),
          approval_id: approvalId,
          owner,
          body,
          status: 'pending' as const,
          next_at: new Date(),
        })),
      )
      .execute()
    this.kick()
  }

  start(): void {
    this.stopped = false
    this.kick()
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.running
  }

  /** Sends what is due now; tries that come due later wake it again. */
  kick(): void {
    if (this.stopped) return
    if (this.running) {
      this.again = true
      return
    }
    clearTimeout(this.timer)
    this.running = this.pump()
      .catch((err: unknown) =>
        console.error('approval webhook outbox:', err instanceof Error ? err.message : err),
      )
      .then(async () => {
        this.running = undefined
        if (this.stopped) return
        if (this.again) {
          this.again = false
          return this.kick()
        }
        this.timer = setTimeout(() => this.kick(), await this.untilNext().catch(() => POLL_MS))
        this.timer.unref()
      })
  }

  private async pump(): Promise<void> {
    for (;;) {
      const claimed = await this.claim()
      await Promise.all(claimed.map((row) => this.attempt(row)))
      if (claimed.length < BATCH || this.stopped) return
    }
  }

  /** Takes due tries nobody holds (or whose holder's lease ran out), on the database's clock. */
  private async claim(): Promise<Claimed[]> {
    const { rows } = await sql<Claimed>`
      update approval_webhook_deliveries
        set lease_holder = ${this.holder}, lease_until = now() + ${LEASE_MS} * interval '1 millisecond'
      where id in (
        select id from approval_webhook_deliveries
        where status = 'pending' and next_at <= now() and (lease_until is null or lease_until < now())
        order by next_at limit ${BATCH}
        for update skip locked)
      returning id, approval_id, owner, body, attempts`.execute(this.db)
    return rows
  }

  private async untilNext(): Promise<number> {
    const { rows } = await sql<{ ms: number | null }>`
      select extract(epoch from (min(greatest(next_at, coalesce(lease_until, next_at))) - now())) * 1000 as ms
      from approval_webhook_deliveries where status = 'pending'`.execute(this.db)
    const ms = rows[0]?.ms
    return ms === null || ms === undefined ? POLL_MS : Math.min(POLL_MS, Math.max(0, Number(ms)))
  }

  private async attempt(row: Claimed): Promise<void> {
    const scope: WebhookScope = row.owner === INSTALLATION ? 'installation' : 'mine'
    const attempt = row.attempts + 1
    const webhook = await this.db
      .selectFrom('approval_webhooks')
      .select(['url', 'secret'])
      .where('owner', '=', row.owner)
      .executeTakeFirst()
    let status: number | null = null
    let error: string | undefined
    let final = false
    if (!webhook) {
      error = 'the webhook was removed'
      final = true
    } else {
      const at = new Date()
      try {
        const response = await fetch(webhook.url, {
          ...reachable(webhook.url, this.networks),
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'webhook-id': row.id,
            'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
            'webhook-signature': new Webhook(this.sealer.open(webhook.secret)).sign(row.id, at, row.body),
          },
          body: row.body,
          redirect: 'manual',
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        })
        await response.body?.cancel().catch(() => undefined)
        status = response.status
        if (status >= 200 && status < 300) final = true
        else error = `answered ${status}`
      } catch (err) {
        const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err
        error =
          cause instanceof AddressRefused
            ? cause.message
            : `could not reach it: ${cause instanceof Error ? cause.message || cause.name : String(cause)}`
        // An address outside the allowed networks stays outside them: no more tries.
        if (cause instanceof AddressRefused) final = true
      }
    }
    const waitMs = this.scheduleMs[attempt]
    const done = final || waitMs === undefined
    // Only the holder settles its try: one whose lease ran out and was claimed again is left alone.
    await this.db
      .updateTable('approval_webhook_deliveries')
      .set({
        attempts: attempt,
        status: done
          ? status !== null && status >= 200 && status < 300
            ? 'delivered'
            : 'failed'
          : 'pending',
        next_at: sql<Date>`now() + ${done ? 0 : waitMs} * interval '1 millisecond'`,
        lease_holder: null,
        lease_until: null,
        last_status: status,
        last_error: error ?? null,
      })
      .where('id', '=', row.id)
      .where('lease_holder', '=', this.holder)
      .execute()
    if (done)
      this.onDelivered({
        approval_id: row.approval_id,
        scope,
        status,
        attempt,
        ...(error ? { error } : {}),
      })
  }
}
