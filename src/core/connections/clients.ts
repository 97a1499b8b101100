import { assertNever } from '../errors.ts'
import { createApiClient, type ApiClient } from '../http/api-client.ts'
import { upstreamError } from '../http/upstream-errors.ts'
import { sha256 } from '../ids.ts'
import { memoized } from '../memo.ts'
import type { BudgetWindow, RateBudget } from '../limits/budget.ts'
import type { PlatformRuntime } from '../platforms/runtime.ts'
import type { Credential } from './credentials.ts'
import { oauth1Authorization } from './oauth1.ts'

/** `retry`: a replacement credential is in place, send the refused request once more. */
export type RefusalVerdict = 'retry' | 'done'

/** A token with no fixed budget still has a key, for pauses the platform announces. */
const UNLIMITED = { limit: Number.POSITIVE_INFINITY, windowMs: 0 }

/** Builds the one authenticated, host-pinned client that tool steps and API Calls both use. */
export class ApiClientFactory {
  /** Budget keys hash the token; a credential object is reused while its integration is cached. */
  private readonly windows = new WeakMap<Credential, BudgetWindow[]>()

  /** `timeoutMs`: the deadline of each exchange with a platform (UPSTREAM_TIMEOUT_MS when unset). */
  constructor(
    private readonly budget: RateBudget,
    private readonly timeoutMs?: number,
  ) {}

  /**
   * `refreshed` is read before each attempt (the token may be refreshed meanwhile). The budget is
   * the one of `credential`, the token the call starts with: a client lives for one call.
   * `onCredentialRefused` is told when the platform refuses the credential (refusals.ts).
   */
  create(
    runtime: PlatformRuntime,
    fields: Record<string, string>,
    credential: Credential,
    refreshed: () => Promise<Credential>,
    agentId: string,
    onCredentialRefused?: () => Promise<RefusalVerdict>,
  ): ApiClient {
    const { definition } = runtime
    return createApiClient({
      baseUrl: runtime.baseUrl(fields),
      pathPrefix: definition.api.pathPrefix,
      defaultQuery: definition.api.defaultQuery?.(fields),
      authorize: async (method, url) => authHeaders(runtime, await refreshed(), method, url),
      rateLimit: definition.rateLimit,
      toError: (response) => upstreamError(definition, response),
      budget: {
        budget: this.budget,
        windows: memoized(this.windows, credential, () => budgetWindows(runtime, credential)),
        agentId,
        platform: definition.id,
      },
      onCredentialRefused,
      timeoutMs: this.timeoutMs,
    })
  }

  /** A client for credentials that belong to no integration (a connect flow, or a step's own): nothing to flag. */
  forCredential(
    runtime: PlatformRuntime,
    fields: Record<string, string>,
    credential: Credential,
    agentId: string,
  ): ApiClient {
    return this.create(runtime, fields, credential, async () => credential, agentId)
  }
}

/**
 * The budgets this credential draws on: one per token (always, so that a pause the platform
 * announces reaches every process) and one per app when the platform has an app-wide limit.
 */
export function budgetWindows(runtime: PlatformRuntime, credential: Credential): BudgetWindow[] {
  const { definition } = runtime
  const budget = definition.rateBudget ?? {}
  const { token, app } = identities(runtime, credential)
  // Hashed: budget keys are stored in the database and must not carry credentials.
  const windows: BudgetWindow[] = [
    { key: `${definition.id}:token:${sha256(token).slice(0, 32)}`, ...(budget.perToken ?? UNLIMITED) },
  ]
  if (budget.perApp && app)
    windows.push({ key: `${definition.id}:app:${sha256(app).slice(0, 32)}`, ...budget.perApp })
  return windows
}

function identities(runtime: PlatformRuntime, credential: Credential): { token: string; app?: string } {
  switch (credential.kind) {
    case 'oauth2':
      return { token: credential.access_token, app: runtime.client.clientId }
    case 'oauth1':
      return { token: credential.token, app: runtime.client.clientId }
    case 'pasted': {
      const identity = runtime.definition.auth.pasted?.identity
      return {
        token: credential.values[identity?.token ?? ''] ?? JSON.stringify(credential.values),
        app: identity?.app ? credential.values[identity.app] : undefined,
      }
    }
    default:
      return assertNever(credential)
  }
}

/** The headers that authenticate one request, by how the integration was connected. */
export function authHeaders(
  runtime: PlatformRuntime,
  credential: Credential,
  method: string,
  url: string,
): Record<string, string> {
  switch (credential.kind) {
    case 'oauth2':
      return { authorization: `Bearer ${credential.access_token}` }
    case 'oauth1':
      return {
        authorization: oauth1Authorization(method, url, {
          consumerKey: runtime.client.clientId,
          consumerSecret: runtime.client.clientSecret,
          token: credential.token,
          tokenSecret: credential.token_secret,
        }),
      }
    case 'pasted': {
      const pasted = runtime.definition.auth.pasted
      if (!pasted) throw new Error(`${runtime.definition.id} takes no pasted credentials`)
      return pasted.headers(credential.values)
    }
    default:
      return assertNever(credential)
  }
}
