import { Webhook } from 'standardwebhooks'
import { z } from 'zod'
import { randomBytes } from 'node:crypto'
import type { User } from '../access/users.ts'
import type { Integrations } from '../connections/integrations.ts'
import type { Sealer } from '../connections/crypto.ts'
import { AppError, invalidInput, notFound, type FieldError } from '../errors.ts'
import { newId } from '../ids.ts'
import type { Db } from '../store/database.ts'
import type { ToolRegistry } from '../tools/catalog.ts'
import { declaredFields, parseOrThrow, undeclaredFields } from '../validation.ts'
import { afterPosition, createdMicros, decodeCursor, PageQuery, pageOf, searchPatterns } from '../paging.ts'
import { sql } from 'kysely'
import { refusedWithoutLookup, type AgentNetworks } from '../http/public-only.ts'
import { AgentInput, definitionProblems, type AgentDefinition } from './definition.ts'
import { saveIntegrationUses } from './integration-uses.ts'
import type { ModelConnections } from '../models/connections.ts'
import { modelAgentProblems } from '../models/validate.ts'
import type { PlanCeilings } from '../models/plan-ceilings.ts'

const MAX_CACHED_VERSIONS = 1_000

/** A page of agents, optionally only those of one name, ignoring case. */
const AgentPageQuery = PageQuery.extend({
  name: z
    .string({ error: 'give one agent name' })
    .min(1, 'give an agent name')
    .max(100, 'at most 100 characters')
    .optional(),
})

export interface AgentView extends Omit<AgentDefinition, 'steps'> {
  id: string
  version: number
  steps: Array<AgentDefinition['steps'][number] & { tool_title: string; integration_name: string | null }>
  created_at: Date
  updated_at: Date
}

/**
 * Agents and their versions (docs/agents.md). Saving makes a new version; a run keeps the version
 * current when its event was accepted. Every query is scoped by user: another user's agent is
 * indistinguishable from none.
 */
export class Agents {
  constructor(
    private readonly db: Db,
    private readonly registry: ToolRegistry,
    private readonly integrations: Integrations,
    private readonly sealer: Sealer,
    private readonly networks: AgentNetworks = 'any',
  ) {}

  /** Creates an agent; an external one gets its signing secret, returned here and never again. */
  async create(user: User, raw: unknown): Promise<{ agent: AgentView; signingSecret?: string }> {
    const def = await this.validate(user, raw)
    const id = newId('agt')
    const signingSecret = def.kind === 'external' ? newSigningSecret() : undefined
    await this.db.transaction().execute(async (trx) => {
      await this.ensureNameFree(trx, user.id, def.name)
      await trx
        .insertInto('agents')
        .values({
          id,
          user_id: user.id,
          name: def.name,
          current_version: 1,
          signing_secret: signingSecret ? this.sealer.seal(signingSecret) : null,
        })
        .execute()
      await trx
        .insertInto('agent_versions')
        .values({ agent_id: id, version: 1, definition: JSON.stringify(def) })
        .execute()
      await saveIntegrationUses(trx, id, user.id, def)
    })
    return { agent: await this.get(user.id, id), signingSecret }
  }

  /** Saving makes a new version; runs already accepted keep theirs. */
  async update(user: User, id: string, raw: unknown): Promise<{ agent: AgentView; signingSecret?: string }> {
    await this.get(user.id, id) // another user's agent answers 404 before its input is looked at
    const def = await this.validate(user, raw)
    let signingSecret: string | undefined
    await this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('agents')
        .select(['current_version', 'signing_secret'])
        .where('id', '=', id)
        .where('user_id', '=', user.id)
        .forUpdate()
        .executeTakeFirst()
      if (!row) throw notFound('agent')
      await this.ensureNameFree(trx, user.id, def.name, id)
      // An agent that becomes external needs a secret to sign with; one it already has is kept.
      if (def.kind === 'external' && !row.signing_secret) signingSecret = newSigningSecret()
      const version = row.current_version + 1
      await trx
        .insertInto('agent_versions')
        .values({ agent_id: id, version, definition: JSON.stringify(def) })
        .execute()
      await trx
        .updateTable('agents')
        .set({
          name: def.name,
          current_version: version,
          updated_at: new Date(),
          ...(signingSecret ? { signing_secret: this.sealer.seal(signingSecret) } : {}),
        })
        .where('id', '=', id)
        .execute()
      await saveIntegrationUses(trx, id, user.id, def)
    })
    return { agent: await this.get(user.id, id), signingSecret }
  }

  /** A new signing secret for an external agent; the old one stops working at once. */
  async rotateSecret(userId: string, id: string): Promise<string> {
    const secret = newSigningSecret()
    const updated = await this.db
      .updateTable('agents')
      .set({ signing_secret: this.sealer.seal(secret) })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst()
    if (!updated.numUpdatedRows) throw notFound('agent')
    return secret
  }

  /**
   * One page of the user's agents, newest first, found by words of their name or description
   * (docs/api.md, "Lists are paged").
   */
  async page(userId: string, raw: unknown): Promise<{ agents: AgentView[]; next_cursor: string | null }> {
    const { limit, cursor, q, name } = parseOrThrow(AgentPageQuery, raw)
    const scope = `agents:${userId}`
    let query = this.rows(userId)
    // By the (user_id, lower(name)) index of migration 0019: the CLI finds an agent by name with it,
    // instead of reading every page of the list (issue 22, §7).
    if (name !== undefined) query = query.where(sql`lower(agents.name)`, '=', sql<string>`lower(${name})`)
    if (cursor) query = query.where(afterPosition('agents', decodeCursor(cursor, scope), 'desc'))
    for (const pattern of searchPatterns(q))
      query = query.where((eb) =>
        eb.or([
          // The agents row's own name (kept with each version) is read first, so a match by name
          // reads no definition; each search stops at one page of matches (issue 22, §7).
          eb('agents.name', 'ilike', pattern),
          eb(sql`agent_versions.definition->>'description'`, 'ilike', pattern),
        ]),
      )
    const rows = await query
      .select(createdMicros('agents').as('created_us'))
      .orderBy('agents.created_at', 'desc')
      .orderBy('agents.id', 'desc')
      .limit(limit + 1)
      .execute()
    const { page, next_cursor } = pageOf(rows, limit, scope)
    return { agents: await this.views(userId, page), next_cursor }
  }

  private rows(userId: string) {
    return this.db
      .selectFrom('agents')
      .innerJoin('agent_versions', (j) =>
        j
          .onRef('agent_versions.agent_id', '=', 'agents.id')
          .onRef('agent_versions.version', '=', 'agents.current_version'),
      )
      .select([
        'agents.id',
        'agents.created_at',
        'agents.updated_at',
        'agents.current_version',
        'agent_versions.definition',
      ])
      .where('agents.user_id', '=', userId)
  }

  private async views(
    userId: string,
    rows: Array<{
      id: string
      current_version: number
      definition: unknown
      created_at: Date
      updated_at: Date
    }>,
  ): Promise<AgentView[]> {
    const names = await this.integrationNames(
      userId,
      rows.map((r) => r.definition as AgentDefinition),
    )
    return rows.map((r) =>
      this.view(r.id, r.current_version, r.definition as AgentDefinition, r.created_at, r.updated_at, names),
    )
  }

  async get(userId: string, id: string, version?: number): Promise<AgentView> {
    const agent = await this.db
      .selectFrom('agents')
      .select(['id', 'current_version', 'created_at', 'updated_at'])
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst()
    if (!agent) throw notFound('agent')
    const wanted = version ?? agent.current_version
    // A saved version never changes, so it is read from the versions cache: starting a run read it
    // from the store every time, a second statement per run (issue 23, section 7).
    const definition = await this.definitionAt(id, wanted).catch((err: unknown) => {
      if (err instanceof AppError && err.code === 'not_found')
        throw notFound(`version ${wanted} of the agent`)
      throw err
    })
    return this.view(
      id,
      wanted,
      definition,
      agent.created_at,
      agent.updated_at,
      await this.integrationNames(userId, [definition]),
    )
  }

  /**
   * An agent by id or, failing that, by its name (names are unique per user): each by its own index,
   * never by reading all of the user's agents (issue 22, §7).
   */
  async find(userId: string, ref: string): Promise<AgentView> {
    const byId = await this.db
      .selectFrom('agents')
      .select('id')
      .where('id', '=', ref)
      .where('user_id', '=', userId)
      .executeTakeFirst()
    const byName = byId
      ? undefined
      : await this.db
          .selectFrom('agents')
          .select('id')
          .where('user_id', '=', userId)
          .where('name', '=', ref)
          .executeTakeFirst()
    const found = byId ?? byName
    if (!found) throw notFound(`agent ${ref}`)
    return this.get(userId, found.id)
  }

  async versions(userId: string, id: string): Promise<Array<{ version: number; created_at: Date }>> {
    await this.get(userId, id)
    return this.db
      .selectFrom('agent_versions')
      .select(['version', 'created_at'])
      .where('agent_id', '=', id)
      .orderBy('version', 'desc')
      .execute()
  }

  /** A version never changes once saved, so the worker reads each one from storage once. */
  private readonly versionCache = new Map<string, AgentDefinition>()
  /** The model connections a model agent may name (set by the composition root). */
  modelConnections?: ModelConnections
  /** The plans' budget ceilings in force (an admin's over the shipped ones). */
  planCeilings?: PlanCeilings

  /** The stored definition of one version, for the worker (no ownership check: the run was checked when it was made). */
  async definitionAt(agentId: string, version: number): Promise<AgentDefinition> {
    const key = `${agentId}@${version}`
    const cached = this.versionCache.get(key)
    if (cached) return cached
    const def = await this.readVersion(agentId, version)
    if (this.versionCache.size >= MAX_CACHED_VERSIONS)
      this.versionCache.delete(this.versionCache.keys().next().value!)
    this.versionCache.set(key, def)
    return def
  }

  private async readVersion(agentId: string, version: number): Promise<AgentDefinition> {
    const row = await this.db
      .selectFrom('agent_versions')
      .select('definition')
      .where('agent_id', '=', agentId)
      .where('version', '=', version)
      .executeTakeFirst()
    if (!row) throw notFound(`version ${version} of agent ${agentId}`)
    return row.definition as AgentDefinition
  }

  async signingSecret(agentId: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('agents')
      .select('signing_secret')
      .where('id', '=', agentId)
      .executeTakeFirst()
    return row?.signing_secret ? this.sealer.open(row.signing_secret) : null
  }

  async delete(userId: string, id: string): Promise<void> {
    const deleted = await this.db
      .deleteFrom('agents')
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst()
    if (!deleted.numDeletedRows) throw notFound('agent')
  }

  private async validate(user: User, raw: unknown): Promise<AgentDefinition> {
    const def = parseOrThrow(AgentInput, raw)
    const errors: FieldError[] = definitionProblems(def)
    // Refused now rather than on its first run: every delivery to it would fail.
    const refused = def.external && refusedWithoutLookup(def.external.url, this.networks)
    if (refused) errors.push({ field: 'external.url', message: refused.message })
    if (def.kind === 'model') {
      if (!this.modelConnections || !this.planCeilings)
        errors.push({ field: 'kind', message: 'this deployment runs no model agents' })
      else
        errors.push(
          ...(await modelAgentProblems(
            user,
            def,
            this.registry,
            this.integrations,
            this.modelConnections,
            await this.planCeilings.of(user.plan),
          )),
        )
    } else if (def.tools.length)
      errors.push({ field: 'tools', message: 'only a model agent has tools; a steps agent lists steps' })
    for (const [i, step] of def.steps.entries()) {
      const registered = this.registry.get(step.tool)
      if (!registered) {
        errors.push({
          field: `steps[${i}].tool`,
          message: `there is no tool step ${step.tool}; GET /v1/tools lists them`,
        })
        continue
      }
      // Its values are templates, checked when a run fills them in; a field the step does not have
      // would fail every run, so it is refused now.
      const known = declaredFields(registered.tool.input)
      if (known) errors.push(...undeclaredFields(step.input, known, `steps[${i}].input`))
      try {
        // Stored by id, so renaming an account never breaks an agent.
        step.integration = (
          await this.integrations.resolve(user.id, registered.platform.id, step.integration)
        ).id
      } catch (err) {
        if (!(err instanceof AppError)) throw err
        errors.push({
          field: `steps[${i}].integration`,
          message: err.extras.errors?.[0]?.message ?? err.message,
        })
      }
    }
    if (errors.length) throw invalidInput(errors)
    return def
  }

  private async ensureNameFree(trx: Db, userId: string, name: string, except?: string): Promise<void> {
    let query = trx.selectFrom('agents').select('id').where('user_id', '=', userId).where('name', '=', name)
    if (except) query = query.where('id', '!=', except)
    if (await query.executeTakeFirst())
      throw invalidInput([{ field: 'name', message: `you already have an agent named "${name}"` }])
  }

  /** The names of the integrations these definitions' steps use, and no others. */
  private async integrationNames(userId: string, defs: AgentDefinition[]): Promise<Map<string, string>> {
    return this.integrations.accountNames(
      userId,
      defs.flatMap((d) => d.steps.map((s) => s.integration)),
    )
  }

  private view(
    id: string,
    version: number,
    def: AgentDefinition,
    created_at: Date,
    updated_at: Date,
    names: Map<string, string>,
  ): AgentView {
    return {
      ...def,
      id,
      version,
      steps: def.steps.map((s) => ({
        ...s,
        tool_title: this.registry.get(s.tool)?.tool.title ?? s.tool,
        integration_name: names.get(s.integration) ?? null,
      })),
      created_at,
      updated_at,
    }
  }
}

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
function newSigningSecret(): string {
  const secret = `whsec_${randomBytes(32).toString('base64')}`
  new Webhook(secret) // throws if the format were ever wrong, before anyone is shown it
  return secret
}
