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
  /** Who signed the sample: Switchyard, with the saved secret, never the platform (issue 22, §5). */
  signed_by: 'switchyard'
  /** What the answer shows, and what it does not. */
  message: string
  answer: unknown
  /** The sample's event ids (the keys it is deduplicated on). */
  event_ids: string[]
  /** The runs it started, with the inputs the mapping gave them. */
  runs: Array<Pick<RunView, 'id' | 'status' | 'inputs' | 'event' | 'error'>>
}

/**
 * What a sample's answer shows. It was signed here with the secret saved here, so a success proves
 * the address, that secret and the mapping, and nothing about the platform's own webhook: a wrong
 * secret pasted from the platform signs the sample just as well (issue 22, §5).
 */
function sampleMessage(platform: string, status: number, answer: unknown, runs: number): string {
  const signed = `Switchyard signed this sample with the secret saved here, not ${platform}`
  if (status < 200 || status >= 300) {
    const detail =
      typeof answer === 'object' && answer !== null && 'detail' in answer ? `: ${String(answer.detail)}` : ''
    return `${signed}. The trigger's address answered ${status}${detail}.`
  }
  const started = runs === 1 ? 'one run started' : `${runs} runs started`
  return `${signed}. The address, that secret and the mapping work together (${started}, marked as tests; their steps really ran). This does not show that ${platform}'s webhook is set up or that its secret matches: the trigger's health counts the deliveries from ${platform} that were refused.`
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
    const runs = response.ok ? await this.startedRuns(userId, row.id, `webhook:${hook.id}`, eventIds) : []
    return {
      status: response.status,
      signed_by: 'switchyard',
      message: sampleMessage(registered.platform.title, response.status, answer, runs.length),
      answer,
      event_ids: eventIds,
      runs,
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
