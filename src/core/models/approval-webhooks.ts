import { randomBytes } from 'node:crypto'
import type { User } from '../access/users.ts'
import type { Sealer } from '../connections/crypto.ts'
import { AppError, invalidInput, notFound } from '../errors.ts'
import { refusedWithoutLookup, type AgentNetworks } from '../http/public-only.ts'
import type { Db } from '../store/database.ts'
import { parseOrThrow } from '../validation.ts'
import { z } from 'zod'
import { INSTALLATION, type ApprovalWebhookOutbox, type WebhookScope } from './approval-webhook-outbox.ts'
import type { ApprovalView } from './approvals.ts'

export { INSTALLATION, type WebhookScope }

export interface ApprovalWebhookView {
  scope: WebhookScope
  url: string
  created_at: Date
  /** Only when it is made: the Standard Webhooks secret to verify deliveries with. */
  secret?: string
}

const WebhookInput = z.strictObject({
  url: z.url({
    protocol: /^https?$/,
    error: 'give the http(s) address to tell, for example https://example.com/hooks/approvals',
  }),
})

/**
 * The optional signed webhook that tells an outside system an approval is waiting
 * (docs/model-agents.md, "Approvals"): one a user sets for their own runs, and one an admin sets
 * for the whole installation. Signed the Standard Webhooks way (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) with a secret shown once and stored sealed; delivered with retries, to
 * public addresses only where SWITCHYARD_AGENT_NETWORKS=public. The body says what waits and how to
 * decide it; it carries no key, token or credential, and deciding still takes a person's own key.
 */
export class ApprovalWebhooks {
  constructor(
    private readonly db: Db,
    private readonly sealer: Sealer,
    private readonly publicUrl: string,
    private readonly networks: AgentNetworks,
    private readonly outbox: ApprovalWebhookOutbox,
  ) {}

  async set(user: User, scope: WebhookScope, raw: unknown): Promise<ApprovalWebhookView> {
    const owner = this.ownerOf(user, scope, 'set')
    const { url } = parseOrThrow(WebhookInput, raw)
    const refused = refusedWithoutLookup(url, this.networks)
    if (refused) throw invalidInput([{ field: 'url', message: refused.message }])
    const secret = `whsec_${randomBytes(32).toString('base64')}`
    const sealed = this.sealer.seal(secret)
    const now = new Date()
    await this.db
      .insertInto('approval_webhooks')
      .values({ owner, url, secret: sealed, created_by: user.id, created_at: now })
      .onConflict((oc) =>
        oc.column('owner').doUpdateSet({ url, secret: sealed, created_by: user.id, created_at: now }),
      )
      .execute()
    return { scope, url, created_at: now, secret }
  }

  async get(user: User, scope: WebhookScope): Promise<ApprovalWebhookView> {
    const owner = this.ownerOf(user, scope, 'read')
    const row = await this.db
      .selectFrom('approval_webhooks')
      .select(['url', 'created_at'])
      .where('owner', '=', owner)
      .executeTakeFirst()
    if (!row)
      throw notFound(scope === 'mine' ? 'approval webhook of yours' : "installation's approval webhook")
    return { scope, url: row.url, created_at: row.created_at }
  }

  async remove(user: User, scope: WebhookScope): Promise<void> {
    const owner = this.ownerOf(user, scope, 'remove')
    const removed = await this.db
      .deleteFrom('approval_webhooks')
      .where('owner', '=', owner)
      .executeTakeFirst()
    if (!removed.numDeletedRows) throw notFound('approval webhook')
  }

  /**
   * Tells the run owner's webhook and the installation's, each signed with its own secret: stored as
   * deliveries first (approval-webhook-outbox.ts), so a restart loses no try.
   */
  async notify(approval: ApprovalView, ownerId: string): Promise<void> {
    const rows = await this.db
      .selectFrom('approval_webhooks')
      .select('owner')
      .where('owner', 'in', [ownerId, INSTALLATION])
      .execute()
    if (!rows.length) return
    await this.outbox.enqueue(
      approval.id,
      rows.map((r) => r.owner),
      JSON.stringify(this.payload(approval)),
    )
  }

  /** What the outside system reads: what waits, in words, and how a person decides it. */
  payload(approval: ApprovalView) {
    const decide = `${this.publicUrl}/v1/approvals/${approval.id}/decide`
    return {
      type: 'approval.waiting',
      timestamp: new Date().toISOString(),
      data: {
        approval_id: approval.id,
        run: { id: approval.run_id, url: `${this.publicUrl}/v1/runs/${approval.run_id}` },
        agent: { id: approval.agent_id, name: approval.agent_name },
        calls: approval.calls.map((c) => ({
          tool_call_id: c.tool_call_id,
          tool: c.tool,
          name: c.name,
          effect: c.effect,
          summary: c.words,
        })),
        expires_at: approval.expires_at.toISOString(),
        how_to_decide: {
          web: `${this.publicUrl}/approvals`,
          rest: `POST ${decide} with {"decisions": [{"tool_call_id": "…", "decision": "approve" | "approve_for_run" | "deny", "reason"?: "…"}]}, as a person with their own API key`,
          cli: `switchyard approvals approve ${approval.id}   or   switchyard approvals deny ${approval.id} --reason "…"`,
          expires: 'undecided calls count as denied when the request expires',
        },
      },
    }
  }

  private ownerOf(user: User, scope: WebhookScope, verb: string): string {
    if (scope === 'mine') return user.id
    if (user.role !== 'admin')
      throw new AppError('forbidden', `only an admin may ${verb} the installation's approval webhook`)
    return INSTALLATION
  }
}
