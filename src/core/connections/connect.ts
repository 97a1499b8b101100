import { calculatePKCECodeChallenge, generateRandomCodeVerifier } from 'oauth4webapi'
import type { User } from '../access/users.ts'
import { AppError, invalidInput, type FieldError } from '../errors.ts'
import { probeAccount } from './account-probe.ts'
import { safeParseForPeople } from '../validation.ts'
import { constantTimeEqual, randomToken, sha256 } from '../ids.ts'
import type { PlatformRuntime } from '../platforms/runtime.ts'
import type { AuthFailure, Identity } from '../platforms/types.ts'
import type { Db } from '../store/database.ts'
import type { ApiClientFactory } from './clients.ts'
import type { Sealer } from './crypto.ts'
import { expiryOf, type Credential, type Credentials } from './credentials.ts'
import type { IntegrationRow, Integrations } from './integrations.ts'
import { getAccessToken, getRequestToken, type TokenPair } from './oauth1-flow.ts'
import { OAuthError, requestToken } from './token-endpoint.ts'

/** A pending connect flow lives this long: enough to sign in, short enough to be useless if leaked. */
export const CONNECT_SESSION_TTL_MS = 10 * 60 * 1000
/** 256-bit state and binding values: well above the 128 bits OAuth security advice asks for. */
const STATE_BYTES = 32
export const CALLBACK_PATH = '/oauth/callback'

export interface ConnectStart {
  connect_url: string
  expires_at: string
}

/** A connect link before its browser goes on to the platform. */
export interface PendingFlow {
  /** The OAuth `state`; names the browser-binding cookie. */
  flowKey: string
  ownerId: string
  /** The Switchyard user the platform account will join. */
  ownerEmail: string
  platformTitle: string
  /** The connection fields the link was made with (for example the Zendesk subdomain), by label. */
  fields: Array<{ label: string; value: string }>
  /** Reconnecting an existing integration rather than adding one. */
  reconnect: boolean
  /** Whether the link is bound to no browser yet, to the one asking, or to another. */
  binding: 'unbound' | 'this_browser' | 'another_browser'
}

/** Secret flow data, sealed in the session row. */
interface FlowSecret {
  state: string
  verifier: string
  /** OAuth 1.0a: the temporary credential, known once the browser starts the flow. */
  requestToken?: TokenPair
}

export interface CallbackParams {
  /** The `state` that names the flow (OAuth 1.0a carries it in the callback URL we registered). */
  flowKey?: string
  code?: string
  /** OAuth 1.0a: the request token and verifier sent back on approval. */
  requestToken?: string
  verifier?: string
  error?: string
  error_description?: string
  binding?: string
}

/**
 * Connecting accounts, platform-neutral: the OAuth 2.0 code flow with PKCE S256, the three-legged
 * OAuth 1.0a flow, and pasted credentials. The flow key (`state`, or the request token) is
 * single-use and bound to the browser that opened the connect URL by an httpOnly cookie; the
 * redirect URI is one fixed address.
 */
export class ConnectFlows {
  constructor(
    private readonly db: Db,
    private readonly runtimes: Map<string, PlatformRuntime>,
    private readonly integrations: Integrations,
    private readonly credentials: Credentials,
    private readonly sealer: Sealer,
    private readonly clients: ApiClientFactory,
    private readonly publicUrl: string,
  ) {}

  /**
   * Called after an account already connected was connected again with a new credential (set by the
   * composition root): what was made under the old credential, such as its webhooks, is made again
   * under the new one. Its failures are its own to show; the connection has succeeded.
   */
  onReconnected:
    ((user: User, runtime: PlatformRuntime, integration: IntegrationRow) => Promise<void>) | null = null

  get redirectUri(): string {
    return `${this.publicUrl}${CALLBACK_PATH}`
  }

  async start(
    user: User,
    platformId: unknown,
    rawFields: unknown,
    integrationId?: string,
  ): Promise<ConnectStart> {
    const runtime = this.runtime(platformId)
    void runtime.client // answers not_configured now, not after the person has opened the link
    const fields = validateFields(runtime, rawFields)
    await probeAccount(runtime, fields)
    const startToken = randomToken(STATE_BYTES)
    const secret: FlowSecret = { state: randomToken(STATE_BYTES), verifier: generateRandomCodeVerifier() }
    const expiresAt = new Date(Date.now() + CONNECT_SESSION_TTL_MS)
    await this.db.deleteFrom('connect_sessions').where('expires_at', '<', new Date()).execute()
    await this.db
      .insertInto('connect_sessions')
      .values({
        state_hash: sha256(secret.state),
        start_hash: sha256(startToken),
        binding_hash: null,
        user_id: user.id,
        platform: runtime.definition.id,
        integration_id: integrationId ?? null,
        fields: JSON.stringify(fields),
        secret: this.sealer.seal(JSON.stringify(secret)),
        redirect_uri: this.redirectUri,
        expires_at: expiresAt,
      })
      .execute()
    return { connect_url: `${this.publicUrl}/oauth/start/${startToken}`, expires_at: expiresAt.toISOString() }
  }

  /**
   * What a connect link is about to do, for the page that asks before going to the platform
   * (docs/security.md): whose Switchyard account the platform account will join. `bindingOf` reads
   * the browser's binding cookie for a flow key; `binding` says whether this browser holds the link.
   */
  async pending(
    startToken: string,
    bindingOf: (flowKey: string) => string | undefined,
  ): Promise<PendingFlow> {
    const session = await this.db
      .selectFrom('connect_sessions')
      .innerJoin('users', 'users.id', 'connect_sessions.user_id')
      .select([
        'connect_sessions.platform',
        'connect_sessions.fields',
        'connect_sessions.secret',
        'connect_sessions.binding_hash',
        'connect_sessions.integration_id',
        'connect_sessions.user_id',
        'users.email',
      ])
      .where('connect_sessions.start_hash', '=', sha256(startToken))
      .where('connect_sessions.expires_at', '>', new Date())
      .executeTakeFirst()
    if (!session) throw expiredFlow()
    const runtime = this.runtime(session.platform)
    const { state } = JSON.parse(this.sealer.open(session.secret)) as FlowSecret
    const cookie = session.binding_hash ? bindingOf(state) : undefined
    const binding = !session.binding_hash
      ? ('unbound' as const)
      : cookie && constantTimeEqual(session.binding_hash, sha256(cookie))
        ? ('this_browser' as const)
        : ('another_browser' as const)
    return {
      flowKey: state,
      ownerId: session.user_id,
      ownerEmail: session.email,
      platformTitle: runtime.definition.title,
      fields: runtime.definition.connectionFields
        .filter((f) => session.fields[f.name] !== undefined)
        .map((f) => ({ label: f.label, value: session.fields[f.name] })),
      reconnect: session.integration_id !== null,
      binding,
    }
  }

  /**
   * The browser opens the connect URL: bind the flow to it with a fresh cookie value. The start link
   * binds once, so a leaked link cannot be bound to another browser.
   */
  async bind(startToken: string): Promise<string> {
    const binding = randomToken(STATE_BYTES)
    const bound = await this.db
      .updateTable('connect_sessions')
      .set({ binding_hash: sha256(binding) })
      .where('start_hash', '=', sha256(startToken))
      .where('binding_hash', 'is', null)
      .where('expires_at', '>', new Date())
      .returning('state_hash')
      .executeTakeFirst()
    if (!bound) throw expiredFlow()
    return binding
  }

  /** The person chose Cancel: the flow ends here, and nothing is connected. */
  async cancel(startToken: string, binding: string | undefined): Promise<void> {
    const session = await this.boundSession(startToken, binding)
    await this.db.deleteFrom('connect_sessions').where('state_hash', '=', session.state_hash).execute()
  }

  /** The person chose Continue in the browser the link is bound to: send it to the platform. */
  async begin(startToken: string, binding: string | undefined): Promise<{ authorizeUrl: string }> {
    const session = await this.boundSession(startToken, binding)
    const runtime = this.runtime(session.platform)
    const secret = JSON.parse(this.sealer.open(session.secret)) as FlowSecret
    const base = runtime.baseUrl(session.fields)
    const facts = runtime.definition.auth.interactive

    if (facts.kind === 'oauth1') {
      let requestToken: TokenPair
      try {
        // Our state rides in the callback URL: a refusal comes back without the request token, and
        // the flow must still be found (and consumed) then.
        requestToken = await getRequestToken(
          runtime,
          base,
          `${session.redirect_uri}?state=${encodeURIComponent(secret.state)}`,
        )
      } catch (err) {
        throw authError(runtime, 'the platform refused to start the authorization', {
          stage: 'authorize',
          status: err instanceof OAuthError ? err.status : undefined,
        })
      }
      await this.db
        .updateTable('connect_sessions')
        .set({ secret: this.sealer.seal(JSON.stringify({ ...secret, requestToken })) })
        .where('state_hash', '=', session.state_hash)
        .execute()
      const url = new URL(facts.authorizeUrl(base, runtime.client))
      url.searchParams.set('oauth_token', requestToken.token)
      for (const [k, v] of Object.entries(facts.authorizeParams ?? {})) url.searchParams.set(k, v)
      return { authorizeUrl: url.toString() }
    }

    const url = new URL(facts.authorizeUrl(base, runtime.client))
    url.searchParams.set('response_type', 'code')
    url.searchParams.set('client_id', runtime.client.clientId)
    url.searchParams.set('redirect_uri', session.redirect_uri)
    url.searchParams.set('scope', facts.scopes.join(' '))
    url.searchParams.set('state', secret.state)
    url.searchParams.set('code_challenge', await calculatePKCECodeChallenge(secret.verifier))
    url.searchParams.set('code_challenge_method', 'S256')
    return { authorizeUrl: url.toString() }
  }

  private async boundSession(startToken: string, binding: string | undefined) {
    const session = await this.db
      .selectFrom('connect_sessions')
      .selectAll()
      .where('start_hash', '=', sha256(startToken))
      .where('expires_at', '>', new Date())
      .executeTakeFirst()
    if (!session) throw expiredFlow()
    if (!session.binding_hash || !binding || !constantTimeEqual(session.binding_hash, sha256(binding)))
      throw otherBrowser()
    return session
  }

  /** The platform redirected back. Consumes the flow (once), gets the credential and saves the integration. */
  async complete(params: CallbackParams): Promise<IntegrationRow> {
    if (!params.flowKey) throw expiredFlow()
    const session = await this.db
      .deleteFrom('connect_sessions')
      .where('state_hash', '=', sha256(params.flowKey))
      .returningAll()
      .executeTakeFirst()
    if (!session || new Date(session.expires_at).getTime() < Date.now()) throw expiredFlow()
    if (
      !session.binding_hash ||
      !params.binding ||
      !constantTimeEqual(session.binding_hash, sha256(params.binding))
    )
      throw otherBrowser()
    const runtime = this.runtime(session.platform)
    if (params.error === 'access_denied') throw denied(runtime)
    if (params.error) {
      throw authError(
        runtime,
        `${runtime.definition.title} did not authorize the connection: ${params.error_description ?? params.error}`,
        { stage: 'authorize', error: params.error },
      )
    }
    const secret = JSON.parse(this.sealer.open(session.secret)) as FlowSecret
    const credential = await this.exchange(runtime, session.fields, session.redirect_uri, secret, params)
    return this.save(runtime, session.user_id, session.fields, credential, session.integration_id)
  }

  /**
   * Pasted credentials (for example an API key plus token) are checked with the platform at once.
   * With `integrationId` they replace that integration's credentials, and must be the same account's.
   */
  async connectPasted(
    user: User,
    platformId: unknown,
    rawFields: unknown,
    rawValues: unknown,
    integrationId: string | null = null,
  ): Promise<IntegrationRow> {
    const runtime = this.runtime(platformId)
    const pasted = runtime.definition.auth.pasted
    if (!pasted)
      throw invalidInput([
        {
          field: 'credentials',
          message: `${runtime.definition.title} connects through its authorization page only`,
        },
      ])
    const fields = validateFields(runtime, rawFields)
    const given = isRecord(rawValues) ? rawValues : {}
    const values: Record<string, string> = {}
    const errors: FieldError[] = []
    for (const field of pasted.fields) {
      const result = safeParseForPeople(field.schema, given[field.name])
      if (result.success) values[field.name] = result.data
      else
        errors.push({
          field: `credentials.${field.name}`,
          message: result.error.issues[0]?.message ?? 'is invalid',
        })
    }
    if (errors.length) throw invalidInput(errors)
    const credential: Credential = { kind: 'pasted', values, issued_at: Date.now() }
    try {
      return await this.save(runtime, user.id, fields, credential, integrationId)
    } catch (err) {
      // Another account's credentials: the error already says what to correct.
      if (
        !(err instanceof AppError) ||
        err.code !== 'connect_failed' ||
        err.extras.upstreamMessage === ACCOUNT_MISMATCH
      )
        throw err
      const explained = await pasted.explainRejection?.(values, runtime.baseUrl(fields))
      if (explained)
        throw authError(runtime, explained.message, { stage: 'identify', error: explained.error })
      throw authError(
        runtime,
        `${runtime.definition.title} refused these credentials: ${err.extras.upstreamMessage ?? err.message}`,
        { stage: 'identify', status: err.extras.upstreamStatus, error: err.extras.upstreamMessage },
      )
    }
  }

  private async exchange(
    runtime: PlatformRuntime,
    fields: Record<string, string>,
    redirectUri: string,
    secret: FlowSecret,
    params: CallbackParams,
  ): Promise<Credential> {
    const facts = runtime.definition.auth.interactive
    const fail = (message: string, failure: AuthFailure) => authError(runtime, message, failure)
    try {
      if (facts.kind === 'oauth1') {
        // OAuth 1.0a has no error code for a refusal: coming back without a verifier is one.
        if (!params.verifier || !secret.requestToken) throw denied(runtime)
        if (params.requestToken !== secret.requestToken.token)
          throw fail('the platform sent back a different request token than this flow asked for', {
            stage: 'authorize',
          })
        const pair = await getAccessToken(
          runtime,
          runtime.baseUrl(fields),
          secret.requestToken,
          params.verifier,
        )
        return { kind: 'oauth1', token: pair.token, token_secret: pair.secret, issued_at: Date.now() }
      }
      if (!params.code)
        throw fail('the platform redirected back without an authorization code', { stage: 'authorize' })
      const tokens = await requestToken(runtime, fields, {
        grant_type: 'authorization_code',
        code: params.code,
        redirect_uri: redirectUri,
        code_verifier: secret.verifier,
      })
      return { kind: 'oauth2', ...tokens }
    } catch (err) {
      if (err instanceof AppError) throw err
      if (err instanceof OAuthError)
        throw fail(`the token exchange failed: ${err.error}`, {
          stage: 'token',
          status: err.status,
          error: err.error,
        })
      throw fail('the platform could not be reached to finish the connection', { stage: 'token' })
    }
  }

  /** Asks the platform who this is, then creates or updates that account's integration. */
  private async save(
    runtime: PlatformRuntime,
    userId: string,
    fields: Record<string, string>,
    credential: Credential,
    integrationId: string | null,
  ): Promise<IntegrationRow> {
    const api = this.clients.forCredential(runtime, fields, credential, `connect:${userId}`)
    let identity: Identity
    try {
      identity = await runtime.definition.identify(
        api,
        fields,
        credential.kind === 'oauth2' ? (credential.extra ?? {}) : {},
      )
    } catch (err) {
      const extras = err instanceof AppError ? err.extras : {}
      throw authError(runtime, 'the platform refused to say who authorized the connection', {
        stage: 'identify',
        status: extras.upstreamStatus,
        error: extras.upstreamMessage,
      })
    }
    if (identity.unusable)
      throw authError(runtime, 'the authorizing account cannot use this integration', identity.unusable)
    if (integrationId) {
      const previous = await this.integrations.get(userId, integrationId)
      if (previous.external_id !== identity.externalId) {
        // The person chose the wrong account, which they can correct.
        throw authError(
          runtime,
          `${runtime.definition.title} says these credentials are for ${identity.accountName}, but this integration is for ${previous.account_name}. ` +
            `Reconnect it as ${previous.account_name}, or add ${identity.accountName} as a new integration`,
          { stage: 'identify', error: ACCOUNT_MISMATCH },
        )
      }
    }
    const owner = await this.db
      .selectFrom('users')
      .select(['id', 'email', 'name', 'plan', 'role'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow()
    const before = await this.db
      .selectFrom('integrations')
      .select('id')
      .where('user_id', '=', userId)
      .where('platform', '=', runtime.definition.id)
      .where('external_id', '=', identity.externalId)
      .executeTakeFirst()
    const saved = await this.integrations.save({
      user: owner,
      platform: runtime.definition.id,
      externalId: identity.externalId,
      accountName: identity.accountName,
      fields: { ...fields, ...identity.fields },
      connectedWith: credential.kind === 'pasted' ? 'credentials' : 'authorization',
      sealedCredentials: this.credentials.seal(credential),
      expiresAt: expiryOf(credential),
    })
    if (before && this.onReconnected) await this.onReconnected(owner as User, runtime, saved).catch(() => {})
    return saved
  }

  private runtime(platformId: unknown): PlatformRuntime {
    const runtime = typeof platformId === 'string' ? this.runtimes.get(platformId) : undefined
    if (!runtime)
      throw invalidInput([
        { field: 'platform', message: `must be one of ${[...this.runtimes.keys()].join(', ')}` },
      ])
    return runtime
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function validateFields(runtime: PlatformRuntime, raw: unknown): Record<string, string> {
  const given = isRecord(raw) ? raw : {}
  const fields: Record<string, string> = {}
  const errors: FieldError[] = []
  for (const field of runtime.definition.connectionFields) {
    const result = safeParseForPeople(field.schema, given[field.name])
    if (result.success) fields[field.name] = result.data
    else
      errors.push({ field: `fields.${field.name}`, message: result.error.issues[0]?.message ?? 'is invalid' })
  }
  if (errors.length) throw invalidInput(errors)
  return fields
}

const ACCOUNT_MISMATCH = 'account_mismatch'

/**
 * The person pressed Deny on the platform's page: a choice, not a fault. Nothing was connected and
 * there is nothing to troubleshoot or reconnect.
 */
function denied(runtime: PlatformRuntime): AppError {
  const { title } = runtime.definition
  return new AppError(
    'connect_failed',
    `You chose Deny on ${title}'s authorization page, so nothing was connected. Connect again and choose Allow to add the account.`,
    {
      upstreamMessage: 'access_denied',
    },
  )
}

/** Only the troubleshooting rules the failure points at are given: a list of guesses helps nobody. */
function authError(runtime: PlatformRuntime, message: string, failure: AuthFailure): AppError {
  const { rules, diagnose } = runtime.definition.troubleshooting
  const applies = diagnose(failure)
  return new AppError('connect_failed', message, {
    troubleshooting: applies.length > 0 ? { rules, applies } : undefined,
    upstreamStatus: failure.status,
    upstreamMessage: failure.error,
  })
}

function otherBrowser(): AppError {
  return new AppError(
    'connect_failed',
    'this authorization was started in another browser; start connecting again from this one',
  )
}

function expiredFlow(): AppError {
  return new AppError(
    'connect_failed',
    'this connection attempt expired or was already used; start connecting again',
  )
}
