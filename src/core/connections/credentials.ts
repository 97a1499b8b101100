import { AppError } from '../errors.ts'
import { memoized } from '../memo.ts'
import type { PlatformRuntime } from '../platforms/runtime.ts'
import type { Store } from '../store/database.ts'
import type { Sealer } from './crypto.ts'
import type { IntegrationRow, Integrations } from './integrations.ts'
import { OAuthError, requestToken, type TokenSet } from './token-endpoint.ts'

export type OAuth2Credential = { kind: 'oauth2' } & TokenSet

/** What an integration holds, sealed, by how it was connected. */
export type Credential =
  | OAuth2Credential
  | { kind: 'oauth1'; token: string; token_secret: string; issued_at: number }
  | { kind: 'pasted'; values: Record<string, string>; issued_at: number }

/** Refresh this long before expiry, so calls never race a token's last seconds. */
export const REFRESH_MARGIN_MS = 5 * 60 * 1000

export function needsRefresh(credential: Credential, now = Date.now()): boolean {
  if (credential.kind !== 'oauth2' || credential.expires_at === undefined) return false
  const expiresAt = credential.expires_at
  // Short-lived tokens get half their lifetime as margin instead, or they would refresh forever.
  const margin = Math.min(REFRESH_MARGIN_MS, (expiresAt - credential.issued_at) / 2)
  return expiresAt - now <= margin
}

/**
 * Hands out a usable access token per integration. Refreshes are single-flight inside a process
 * (one promise per integration) and guarded by a database lock across processes; under the lock the
 * stored tokens are re-read, because another process may have refreshed them already.
 */
export class Credentials {
  private readonly inFlight = new Map<string, Promise<Credential>>()
  /**
   * Opened credentials, by the integration row they were sealed in. Integrations hands out the same
   * row object while it caches it, so every call in that time skips the decryption (a large share of
   * a call's CPU); the plaintext lives no longer than that row, and a changed row is a new object.
   */
  private readonly opened = new WeakMap<IntegrationRow, Credential>()

  constructor(
    private readonly store: Store,
    private readonly integrations: Integrations,
    private readonly sealer: Sealer,
  ) {}

  seal(credential: Credential): string {
    return this.sealer.seal(JSON.stringify(credential))
  }

  open(sealed: string): Credential {
    return JSON.parse(this.sealer.open(sealed)) as Credential
  }

  /** The integration's usable credential, refreshed first when it is about to expire. */
  async current(integration: IntegrationRow, runtime: PlatformRuntime): Promise<Credential> {
    if (integration.status !== 'active' || !integration.credentials) {
      // Nothing was sent: the platform cannot have refused anything, so no troubleshooting either.
      const { title } = runtime.definition
      const why =
        integration.status === 'disconnected'
          ? `is disconnected, so ${title} was not contacted`
          : `needs reconnecting: ${title} no longer accepts its authorization (it expired or was revoked), so ${title} was not contacted`
      throw new AppError(
        'reconnect_required',
        `integration "${integration.account_name}" ${why}. Reconnect it to run steps on it`,
        {
          integrationId: integration.id,
        },
      )
    }
    const sealed = integration.credentials
    const tokens = memoized(this.opened, integration, () => this.open(sealed))
    if (!needsRefresh(tokens)) return tokens
    return this.singleFlight(integration, runtime)
  }

  /**
   * The platform refused `refused` although it looked valid (its clock runs ahead of ours, or it
   * was revoked): a replacement to retry with, or undefined when there is none to try. The
   * replacement is the stored credential if someone has replaced it already, else a refresh.
   */
  async replaceRefused(
    integration: IntegrationRow,
    runtime: PlatformRuntime,
    refused: Credential,
  ): Promise<Credential | undefined> {
    const stored = await this.integrations.credentialsOf(integration.id)
    if (!stored?.credentials || stored.status !== 'active') return undefined
    const current = this.open(stored.credentials)
    if (!sameToken(current, refused)) return current
    if (current.kind !== 'oauth2' || !current.refresh_token) return undefined
    return this.singleFlight(integration, runtime, refused)
  }

  /** One refresh per integration at a time in this process; callers meanwhile share its result. */
  private singleFlight(
    integration: IntegrationRow,
    runtime: PlatformRuntime,
    refused?: Credential,
  ): Promise<Credential> {
    let pending = this.inFlight.get(integration.id)
    if (!pending) {
      pending = this.refresh(integration, runtime, refused).finally(() =>
        this.inFlight.delete(integration.id),
      )
      this.inFlight.set(integration.id, pending)
    }
    return pending
  }

  /** Refreshes when the stored credential is about to expire, or is still the `refused` one. */
  private async refresh(
    integration: IntegrationRow,
    runtime: PlatformRuntime,
    refused?: Credential,
  ): Promise<Credential> {
    return this.store.withLock(`refresh:${integration.id}`, async () => {
      const stored = await this.integrations.credentialsOf(integration.id)
      if (!stored?.credentials || stored.status !== 'active') throw this.broken(integration, runtime)
      const current = this.open(stored.credentials)
      const stale = refused ? sameToken(current, refused) : needsRefresh(current)
      if (!stale) {
        this.integrations.forget(integration.id) // another process refreshed: our cached row is stale
        return current
      }
      if (current.kind !== 'oauth2' || !current.refresh_token) throw this.broken(integration, runtime)
      try {
        const fresh = await requestToken(runtime, integration.fields, {
          grant_type: 'refresh_token',
          refresh_token: current.refresh_token,
        })
        // Some platforms do not rotate refresh tokens; keep the old one then.
        const next: Credential = {
          kind: 'oauth2',
          ...fresh,
          refresh_token: fresh.refresh_token ?? current.refresh_token,
        }
        await this.integrations.storeCredentials(integration.id, this.seal(next), expiryOf(next))
        return next
      } catch (err) {
        if (err instanceof OAuthError && err.error === 'invalid_grant') {
          // Re-read before declaring the integration broken: if the stored tokens changed since we
          // read them, someone else refreshed successfully and we should use their result.
          const again = await this.integrations.credentialsOf(integration.id)
          if (again?.credentials && again.credentials !== stored.credentials && again.status === 'active') {
            return this.open(again.credentials)
          }
          await this.integrations.markNeedsReconnection(integration.id, stored.credentials)
          throw this.broken(integration, runtime)
        }
        if (err instanceof OAuthError)
          throw new AppError('upstream_error', `token refresh failed: ${err.error}`)
        throw err
      }
    })
  }

  private broken(integration: IntegrationRow, runtime: PlatformRuntime): AppError {
    const { rules } = runtime.definition.troubleshooting
    return new AppError(
      'reconnect_required',
      `integration "${integration.account_name}" needs reconnection: its refresh token was refused`,
      {
        integrationId: integration.id,
        troubleshooting: {
          rules,
          applies: runtime.definition.troubleshooting.diagnose({ stage: 'refresh', error: 'invalid_grant' }),
        },
      },
    )
  }
}

function sameToken(a: Credential, b: Credential): boolean {
  if (a.kind === 'oauth2' && b.kind === 'oauth2') return a.access_token === b.access_token
  return JSON.stringify(a) === JSON.stringify(b)
}

export function expiryOf(credential: Credential): Date | null {
  return credential.kind === 'oauth2' && credential.expires_at ? new Date(credential.expires_at) : null
}
