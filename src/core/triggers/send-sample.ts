import type { RunView, Runs } from '../agents/runs.ts'
import type { Sealer } from '../connections/crypto.ts'
import { AppError, notFound } from '../errors.ts'
import type { Db } from '../store/database.ts'
import type { TriggerRegistry } from './catalog.ts'
import type { RemoteWebhooks } from './remote-webhooks.ts'

/** How long the intake may take to answer the sample (it answers once the event is durable). */
const POST_TIMEOUT_MS = 15_000

export interface SampleOutcome {
  /** The intake's HTTP status and answer, as the platform would have received them. */
  status: number
  answer: unknown
  /** The sample's event ids (the keys it is deduplicated on). */
  event_ids: string[]
  /** The runs it started, with the inputs the mapping gave them. */
  runs: Array<Pick<RunView, 'id' | 'status' | 'inputs' | 'event' | 'error'>>
}

/**
 * "Send sample event", for platforms whose webhooks the user sets
 * up and that have no test button of their own: a realistic delivery, signed with the secret the
 * user pasted exactly as the platform signs, posted over HTTP to the subscription's own address.
 * It goes through the real intake (signature, parsing, matching, mapping, deduplication), so a
 * success shows that the address, the secret and the mapping work together.
 */
export class SampleEvents {
  constructor(
    private readonly db: Db,
    private readonly triggers: TriggerRegistry,
    private readonly webhooks: RemoteWebhooks,
    private readonly sealer: Sealer,
    private readonly runs: Runs,
  ) {}

  async send(userId: string, subscriptionId: string): Promise<SampleOutcome> {
    const row = await this.db
      .selectFrom('subscriptions')
      .select(['id', 'trigger_id', 'config', 'status'])
      .where('id', '=', subscriptionId)
      .where('user_id', '=', userId)
      .executeTakeFirst()
    if (!row) throw notFound('subscription')
    const registered = this.triggers.get(row.trigger_id)
    const facts = registered?.platform.webhooks
    const hook = (await this.webhooks.forSubscription(row.id)).find((h) => !h.managed)
    if (!registered || !facts?.signSample || !registered.trigger.sampleBody || !hook) {
      throw new AppError(
        'conflict',
        'this trigger has no sample event to send; use POST /v1/subscriptions/{id}/test instead',
      )
    }
    if (!hook.secret) {
      throw new AppError(
        'conflict',
        `give the webhook's secret first (PATCH /v1/subscriptions/${row.id} with webhook_secret): without it every delivery is refused, this sample too`,
      )
    }
    if (row.status !== 'active')
      throw new AppError('conflict', 'activate the trigger first: an inactive trigger starts nothing')

    const config = registered.trigger.config.parse(row.config)
    const rawBody = Buffer.from(JSON.stringify(registered.trigger.sampleBody(config)), 'utf8')
    const headers = facts.signSample(rawBody, this.sealer.open(hook.secret))
    const address = this.webhooks.addressOf(hook.token)
    const eventIds = facts.parse({ rawBody, headers, callbackUrl: address }).map((c) => c.dedupeKey)

    let response: Response
    try {
      response = await fetch(address, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: rawBody,
        signal: AbortSignal.timeout(POST_TIMEOUT_MS),
      })
    } catch (err) {
      throw new AppError(
        'upstream_error',
        `the webhook address ${address} did not answer: check that SWITCHYARD_PUBLIC_URL reaches this server (${err instanceof Error ? err.message : String(err)})`,
      )
    }
    const text = await response.text()
    let answer: unknown = text
    try {
      answer = JSON.parse(text)
    } catch {
      // not JSON: shown as it came
    }
    return {
      status: response.status,
      answer,
      event_ids: eventIds,
      runs: response.ok ? await this.startedRuns(userId, row.id, `webhook:${hook.id}`, eventIds) : [],
    }
  }

  private async startedRuns(
    userId: string,
    subscriptionId: string,
    source: string,
    eventIds: string[],
  ): Promise<SampleOutcome['runs']> {
    if (eventIds.length === 0) return []
    const rows = await this.db
      .selectFrom('runs')
      .innerJoin('events', 'events.id', 'runs.event_id')
      .select('runs.id')
      .where('events.source', '=', source)
      .where('events.dedupe_key', 'in', eventIds)
      .where('runs.subscription_id', '=', subscriptionId)
      .where('runs.user_id', '=', userId)
      .execute()
    // A sample's runs are marked as tests, as a trigger's test runs are: on the runs list they must
    // not pass for something that happened on the platform.
    if (rows.length)
      await this.db
        .updateTable('runs')
        .set({ test: true })
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        )
        .execute()
    const views = await Promise.all(rows.map((r) => this.runs.get(userId, r.id)))
    return views.map(({ id, status, inputs, event, error }) => ({ id, status, inputs, event, error }))
  }
}
