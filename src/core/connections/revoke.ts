import type { PlatformRuntime } from '../platforms/runtime.ts'
import type { ApiClientFactory } from './clients.ts'
import type { Credentials } from './credentials.ts'
import type { IntegrationRow } from './integrations.ts'

/**
 * Best-effort revocation at the platform when an integration is disconnected or deleted. Our copy of
 * the credentials is erased regardless; a platform that is down must not keep a user connected.
 */
export class Revoker {
  constructor(
    private readonly runtimes: Map<string, PlatformRuntime>,
    private readonly credentials: Credentials,
    private readonly clients: ApiClientFactory,
  ) {}

  async revoke(integration: IntegrationRow): Promise<boolean> {
    const runtime = this.runtimes.get(integration.platform)
    if (!runtime?.definition.revoke || !integration.credentials || integration.status !== 'active')
      return false
    try {
      const credential = this.credentials.open(integration.credentials)
      const api = this.clients.forCredential(
        runtime,
        integration.fields,
        credential,
        `disconnect:${integration.id}`,
      )
      await runtime.definition.revoke(api)
      return true
    } catch {
      return false
    }
  }
}
