import { z } from 'zod'
import type { User } from '../access/users.ts'
import type { Sealer } from '../connections/crypto.ts'
import { AppError, invalidInput, notFound } from '../errors.ts'
import { refusedWithoutLookup, type AgentNetworks } from '../http/public-only.ts'
import { newId } from '../ids.ts'
import type { Db } from '../store/database.ts'
import type { Selectable } from 'kysely'
import type { ModelConnectionsTable, ModelProtocol } from '../store/schema.ts'
import { SharedCache, type SharedCacheOptions } from '../store/shared-cache.ts'
import { parseOrThrow } from '../validation.ts'
import type { ModelEndpoint } from './client.ts'

export const PROTOCOLS = ['openai-chat', 'openai-responses', 'anthropic', 'openai-compatible'] as const

/** The connection to the local model sandbox (`npm start`): no key, and labelled a sandbox model. */
export const SANDBOX_CONNECTION_ID = 'mc_sandbox'
export const SANDBOX_CONNECTION_NAME = 'Sandbox model'

/** The model sandbox this deployment may use; none in production. */
export interface ModelSandboxBinding {
  baseUrl: string
  apiKey: string
}

export interface ModelConnectionView {
  id: string
  name: string
  protocol: ModelProtocol
  base_url: string
  /** Whether a key is stored: the key itself never leaves the server. */
  has_key: boolean
  shared: boolean
  /** Yours to remove, an admin's shared one, or the sandbox's. */
  owner: 'you' | 'shared' | 'sandbox'
  /** The sandbox model follows scripted rules: it understands nothing. */
  sandbox: boolean
  created_at: Date | null
}

const ConnectionInput = z.strictObject({
  name: z
    .string({ error: 'give the connection a name' })
    .trim()
    .min(1, 'give the connection a name')
    .max(100),
  protocol: z.enum(PROTOCOLS, { error: `choose one of ${PROTOCOLS.join(', ')}` }),
  base_url: z.url({
    protocol: /^https?$/,
    error: 'give the http(s) base URL, for example https://api.openai.com/v1',
  }),
  api_key: z
    .string()
    .min(1, 'give the key, or leave it out for a server that takes none')
    .max(4_000)
    .optional(),
  shared: z.boolean({ error: 'say true or false' }).default(false),
})

/** What a connection's owner may change in place: agents refer to it by id, so they keep working. */
const ConnectionChange = z.strictObject({
  name: z
    .string({ error: 'give the connection a name' })
    .trim()
    .min(1, 'give the connection a name')
    .max(100)
    .optional(),
  base_url: z
    .url({ protocol: /^https?$/, error: 'give the http(s) base URL, for example https://api.openai.com/v1' })
    .optional(),
  api_key: z
    .string({ error: 'give the new key as a string, or null to remove it' })
    .min(1, 'give the new key, or null for a server that takes none')
    .max(4_000)
    .nullable()
    .optional(),
})

/**
 * How long another instance may use a connection row this one has changed if the change feed's
 * notice is lost; this instance forgets it at once, the others when the notice arrives.
 */
export const MODEL_CONNECTION_CACHE_TTL_MS = 5_000

type ModelConnectionRow = Selectable<ModelConnectionsTable>

/**
 * Model connections (docs/model-agents.md, "Model connections"): the user's own, an admin's shared
 * ones, and the sandbox model. Keys are sealed like platform credentials (connections/crypto.ts)
 * and opened only to make a call; no answer, error or log carries them.
 */
export class ModelConnections {
  /**
   * The rows model calls are made with, by id, the key still sealed. A run's every model call looks
   * its connection up (run-client.ts); reading the row each time was a statement per call for a row
   * that changes only through update() and remove(), which announce the change on the store's change
   * feed, so every instance drops its copy and the next call uses the new key (issue 23, §7).
   */
  private readonly rows: SharedCache<ModelConnectionRow>

  constructor(
    private readonly db: Db,
    private readonly sealer: Sealer,
    private readonly sandbox?: ModelSandboxBinding,
    /**
     * Which networks a connection's base URL may be on: the same rule as an external agent's
     * address (SWITCHYARD_AGENT_NETWORKS, docs/security.md). A base URL is an address a user typed,
     * and a model call sends a request there and shows the answer on the timeline.
     */
    private readonly networks: AgentNetworks = 'any',
    cache: SharedCacheOptions = {},
  ) {
    this.rows = new SharedCache('model_connection', (row) => row.id, MODEL_CONNECTION_CACHE_TTL_MS, cache)
  }

  /** A connection's name is its owner's own and never the sandbox model's: else a 400 naming `name`. */
  private async refuseNameInUse(userId: string, name: string, inUse: string): Promise<void> {
    if (name === SANDBOX_CONNECTION_NAME)
      throw invalidInput([{ field: 'name', message: 'that name is the sandbox model' }])
    const taken = await this.db
      .selectFrom('model_connections')
      .select('id')
      .where('user_id', '=', userId)
      .where('name', '=', name)
      .executeTakeFirst()
    if (taken) throw invalidInput([{ field: 'name', message: inUse }])
  }

  /**
   * The connection `user` may change or remove. A shared one is everyone's to use, so only an admin
   * changes it (its owner too loses that when no longer an admin): others see it, so they are told
   * 403. Someone else's own connection is not theirs to see: 404, as for one that does not exist
   * (docs/architecture.md, "The road of a tool step", step 3).
   */
  private async changeable(user: User, id: string, verb: 'changes' | 'removes') {
    if (id === SANDBOX_CONNECTION_ID && this.sandbox)
      throw new AppError(
        'forbidden',
        "the sandbox model is the deployment's own: it is not changed or removed",
      )
    const row = await this.db
      .selectFrom('model_connections')
      .select(['user_id', 'shared', 'protocol', 'name'])
      .where('id', '=', id)
      .executeTakeFirst()
    if (row?.shared) {
      if (user.role !== 'admin')
        throw new AppError('forbidden', `only an admin ${verb} a shared model connection`)
      return row
    }
    if (!row || row.user_id !== user.id) throw notFound(`model connection ${id}`)
    return row
  }

  async create(user: User, raw: unknown): Promise<ModelConnectionView> {
    const input = parseOrThrow(ConnectionInput, raw)
    if (input.shared && user.role !== 'admin')
      throw new AppError('forbidden', 'only an admin shares a model connection with everyone')
    if (input.protocol !== 'openai-compatible' && !input.api_key)
      throw invalidInput([
        { field: 'api_key', message: `a ${input.protocol} connection needs the provider's key` },
      ])
    // Refused now rather than on its first call; a name is checked again on the address connected to.
    const refused = refusedWithoutLookup(input.base_url, this.networks)
    if (refused) throw invalidInput([{ field: 'base_url', message: refused.message }])
    await this.refuseNameInUse(
      user.id,
      input.name,
      `you already have a model connection named "${input.name}"`,
    )
    const id = newId('mc')
    await this.db
      .insertInto('model_connections')
      .values({
        id,
        user_id: user.id,
        name: input.name,
        protocol: input.protocol,
        base_url: input.base_url.replace(/\/+$/, ''),
        api_key: input.api_key ? this.sealer.seal(input.api_key) : null,
        shared: input.shared,
      })
      .execute()
    return (await this.list(user.id)).find((c) => c.id === id)!
  }

  async list(userId: string): Promise<ModelConnectionView[]> {
    const rows = await this.db
      .selectFrom('model_connections')
      .selectAll()
      .where((eb) => eb.or([eb('user_id', '=', userId), eb('shared', '=', true)]))
      .orderBy('created_at')
      .execute()
    const views: ModelConnectionView[] = rows.map((r) => ({
      id: r.id,
      name: r.name,
      protocol: r.protocol,
      base_url: r.base_url,
      has_key: r.api_key !== null,
      shared: r.shared,
      owner: r.user_id === userId ? 'you' : 'shared',
      sandbox: false,
      created_at: r.created_at,
    }))
    if (this.sandbox)
      views.unshift({
        id: SANDBOX_CONNECTION_ID,
        name: SANDBOX_CONNECTION_NAME,
        protocol: 'openai-chat',
        base_url: this.sandbox.baseUrl,
        has_key: false,
        shared: true,
        owner: 'sandbox',
        sandbox: true,
        created_at: null,
      })
    return views
  }

  /**
   * Changes a connection in place: a new key (rotation), base URL or name. Only its owner, or an
   * admin for a shared one. The next model call of every run using it reads the change (run-client.ts).
   */
  async update(user: User, id: string, raw: unknown): Promise<ModelConnectionView> {
    const input = parseOrThrow(ConnectionChange, raw)
    const row = await this.changeable(user, id, 'changes')
    if (input.api_key === null && row.protocol !== 'openai-compatible')
      throw invalidInput([
        { field: 'api_key', message: `a ${row.protocol} connection needs the provider's key` },
      ])
    if (input.base_url !== undefined) {
      const refused = refusedWithoutLookup(input.base_url, this.networks)
      if (refused) throw invalidInput([{ field: 'base_url', message: refused.message }])
    }
    if (input.name !== undefined && input.name !== row.name) {
      await this.refuseNameInUse(
        row.user_id,
        input.name,
        `there is already a model connection named "${input.name}"`,
      )
    }
    const change = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.base_url !== undefined ? { base_url: input.base_url.replace(/\/+$/, '') } : {}),
      ...(input.api_key !== undefined
        ? { api_key: input.api_key ? this.sealer.seal(input.api_key) : null }
        : {}),
    }
    if (Object.keys(change).length === 0)
      throw invalidInput([{ field: 'api_key', message: 'give a new api_key, base_url or name' }])
    await this.db.updateTable('model_connections').set(change).where('id', '=', id).execute()
    await this.rows.changed(id)
    return (await this.list(user.id)).find((c) => c.id === id)!
  }

  /** Removes one of the caller's own connections (an admin may remove a shared one). */
  async remove(user: User, id: string): Promise<void> {
    await this.changeable(user, id, 'removes')
    await this.db.deleteFrom('model_connections').where('id', '=', id).execute()
    await this.rows.changed(id)
  }

  /** The connection a user may use, by id or name: their own, a shared one, or the sandbox. */
  async resolve(userId: string, ref: string): Promise<ModelConnectionView> {
    const found = (await this.list(userId)).find((c) => c.id === ref || c.name === ref)
    if (!found) throw notFound(`model connection ${ref}`)
    return found
  }

  /** Where to call and with what key: only for the run that calls now, never shown. */
  async endpoint(userId: string, id: string): Promise<ModelEndpoint & { sandbox: boolean }> {
    if (id === SANDBOX_CONNECTION_ID) {
      if (!this.sandbox) throw new AppError('not_configured', 'this deployment has no sandbox model')
      return {
        protocol: 'openai-chat',
        baseUrl: this.sandbox.baseUrl,
        apiKey: this.sandbox.apiKey,
        // The deployment's own sandbox, configured by its operator, not an address a user typed.
        networks: 'any',
        sandbox: true,
      }
    }
    const row = await this.row(id)
    if (!row || (row.user_id !== userId && !row.shared))
      throw new AppError('not_found', 'the model connection of this agent was removed')
    return {
      protocol: row.protocol,
      baseUrl: row.base_url,
      apiKey: row.api_key ? this.sealer.open(row.api_key) : null,
      networks: this.networks,
      sandbox: false,
    }
  }

  /** A connection's row, from this process's cache when it holds one (`rows`). */
  private async row(id: string): Promise<ModelConnectionRow | undefined> {
    const cached = this.rows.get(id)
    if (cached) return cached
    const generation = this.rows.generation()
    const row = await this.db
      .selectFrom('model_connections')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst()
    if (row) this.rows.set(id, row, generation)
    return row
  }
}
