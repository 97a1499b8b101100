import type { PlatformDefinition } from './types.ts'

/** A platform as this deployment runs it: live (real OAuth client configured) or on its sandbox. */
export interface PlatformRuntime {
  definition: PlatformDefinition
  mode: 'live' | 'sandbox'
  client: { clientId: string; clientSecret: string }
  /** Account base URL for the given connection fields, without the API prefix. */
  baseUrl(fields: Record<string, string>): string
}

/**
 * Setting both of a platform's client variables points it at the real service; otherwise it runs
 * against the bundled sandbox. The code path is the same: only base URL and credentials differ.
 */
export function resolveRuntime(definition: PlatformDefinition, env: NodeJS.ProcessEnv, sandboxUrl: string): PlatformRuntime {
  const oauth = definition.auth.interactive
  const clientId = env[oauth.clientIdEnv]
  const clientSecret = env[oauth.clientSecretEnv]
  if (clientId && clientSecret) {
    return { definition, mode: 'live', client: { clientId, clientSecret }, baseUrl: (fields) => definition.api.baseUrl(fields) }
  }
  const platformSandbox = `${sandboxUrl}${definition.sandbox.prefix}`
  return {
    definition,
    mode: 'sandbox',
    client: oauth.sandboxClient,
    baseUrl: (fields) => definition.api.sandboxBaseUrl(platformSandbox, fields),
  }
}
