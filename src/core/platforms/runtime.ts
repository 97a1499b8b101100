import { AppError } from '../errors.ts'
import type { OAuthClient, PlatformDefinition } from './types.ts'

/** What the composition root tells the product about a platform's sandbox, when one is served. */
export interface SandboxBinding {
  /** The OAuth client the sandbox has pre-registered. */
  client: OAuthClient
  /** An account's base URL on the sandbox, without the API prefix. */
  baseUrl(fields: Record<string, string>): string
  /** The sandbox's own pages for people (its home page), to link from the web app. */
  home?: string
}

/**
 * A platform as this deployment runs it: `live` (its real OAuth client is configured), `sandbox`
 * (no client configured, and a sandbox is served), or `not_configured` (no client and no sandbox,
 * as in production: connecting answers `not_configured` instead of silently using an emulator).
 */
export interface PlatformRuntime {
  definition: PlatformDefinition
  mode: 'live' | 'sandbox' | 'not_configured'
  /** Throws `not_configured` when the platform has no client. */
  readonly client: OAuthClient
  /** Account base URL for the given connection fields, without the API prefix. */
  baseUrl(fields: Record<string, string>): string
  /** The environment variables that are still missing (empty unless `not_configured`). */
  missing: string[]
  /** In sandbox mode: the sandbox's home page, where a person makes changes and adds webhooks. */
  sandboxHome?: string
}

/**
 * Setting all of a platform's client variables points it at the real service; setting none runs it
 * against its sandbox when the composition root serves one; anything else is `not_configured`. The code path is the same: only base
 * URL and credentials differ (docs/architecture.md, "Live, sandbox, not configured").
 */
export function resolveRuntime(
  definition: PlatformDefinition,
  env: NodeJS.ProcessEnv,
  sandbox: SandboxBinding | undefined,
): PlatformRuntime {
  const oauth = definition.auth.interactive
  const clientId = env[oauth.clientIdEnv]
  const clientSecret = env[oauth.clientSecretEnv]
  const appName = oauth.appNameEnv ? env[oauth.appNameEnv] : undefined
  const liveBaseUrl = (fields: Record<string, string>) => definition.api.baseUrl(fields)
  const required = [oauth.clientIdEnv, oauth.clientSecretEnv, ...(oauth.appNameEnv ? [oauth.appNameEnv] : [])]
  const missing = required.filter((name) => !env[name])
  if (clientId && clientSecret && missing.length === 0) {
    return {
      definition,
      mode: 'live',
      client: { clientId, clientSecret, appName },
      baseUrl: liveBaseUrl,
      missing: [],
    }
  }
  // A half-configured platform is a mistake to report, never a reason to fall back to the sandbox.
  const partlyConfigured = missing.length < required.length
  if (sandbox && !partlyConfigured)
    return {
      definition,
      mode: 'sandbox',
      client: sandbox.client,
      baseUrl: sandbox.baseUrl,
      missing: [],
      sandboxHome: sandbox.home,
    }
  return {
    definition,
    mode: 'not_configured',
    get client(): never {
      throw new AppError(
        'not_configured',
        `${definition.title} is not configured on this Switchyard: set ${missing.join(' and ')} (see docs/configuration.md).`,
      )
    },
    baseUrl: liveBaseUrl,
    missing,
  }
}
