import { loadConfig, type Config } from '../core/config.ts'
import { loadEncryptionKey } from '../core/connections/crypto.ts'
import { resolveRuntime } from '../core/platforms/runtime.ts'
import { platforms } from '../platforms/index.ts'
import type { DoctorCheck } from './doctor-check.ts'
import { nodeVersionCheck } from './node-version.ts'

export type { DoctorCheck }

/**
 * Checks this deployment's configuration without starting it: what the service would refuse to
 * start without, and which platforms could be connected. In production a sandbox is never used, so
 * a platform without its OAuth client is reported as not configured (docs/configuration.md).
 */
export function diagnoseConfig(
  env: NodeJS.ProcessEnv = process.env,
  config: Config = loadConfig(env),
): DoctorCheck[] {
  const checks: DoctorCheck[] = [nodeVersionCheck()]
  checks.push({
    name: 'mode',
    ok: true,
    detail: config.production
      ? 'production: sandboxes never start'
      : 'embedded default: platforms without a client use the sandboxes',
  })
  if (config.production) {
    checks.push(encryptionKeyCheck(config))
    checks.push(
      config.databaseUrl
        ? { name: 'DATABASE_URL', ok: true, detail: 'set (PostgreSQL)' }
        : {
            name: 'DATABASE_URL',
            ok: true,
            detail: `unset: embedded PGlite in ${config.dataDir}, for one instance only`,
          },
    )
    checks.push(
      env.SWITCHYARD_PUBLIC_URL
        ? { name: 'SWITCHYARD_PUBLIC_URL', ok: true, detail: config.publicUrl }
        : {
            name: 'SWITCHYARD_PUBLIC_URL',
            ok: false,
            detail: `missing: OAuth redirect URIs would point at ${config.publicUrl}`,
          },
    )
  }
  for (const platform of platforms) {
    // Outside production a sandbox stands in (its details do not matter to this check).
    const runtime = resolveRuntime(
      platform,
      env,
      config.production ? undefined : { client: { clientId: '', clientSecret: '' }, baseUrl: () => '' },
    )
    checks.push({
      name: platform.title,
      ok: runtime.mode !== 'not_configured',
      detail:
        runtime.mode === 'not_configured'
          ? `not configured: set ${runtime.missing.join(', ')}`
          : runtime.mode,
    })
  }
  return checks
}

/** The same check the service makes when it starts in production, with its message. */
function encryptionKeyCheck(config: Config): DoctorCheck {
  try {
    loadEncryptionKey({ key: config.encryptionKey, production: true, dataDir: config.dataDir })
    return { name: 'SWITCHYARD_ENCRYPTION_KEY', ok: true, detail: 'set' }
  } catch (err) {
    return { name: 'SWITCHYARD_ENCRYPTION_KEY', ok: false, detail: (err as Error).message }
  }
}
