import { AppError } from '../errors.ts'
import type { PlatformRuntime } from '../platforms/runtime.ts'
import type { ApiClientFactory, RefusalVerdict } from './clients.ts'
import type { Credential, Credentials } from './credentials.ts'
import type { IntegrationRow, Integrations } from './integrations.ts'

export type { RefusalVerdict }

/**
 * What a run does when the platform refuses its integration's credential (docs/security.md). A 401
 * says as much about the request as about the credential (a caller can add a bad token of its own
 * to an API Call), so it never flags the integration by itself. The run first retries once with a
 * replacement (a refresh, when the credential can be refreshed: the platform's clock may run ahead
 * of ours), then asks the platform's own identify call on the stored credential, and flags the
 * integration only if that is refused too.
 */
export class CredentialRefusals {
  constructor(
    private readonly integrations: Integrations,
    private readonly credentials: Credentials,
    private readonly clients: ApiClientFactory,
  ) {}

  /** The handler of one run, which reads and replaces the run's credential through `credential`. */
  forRun(
    integration: IntegrationRow,
    runtime: PlatformRuntime,
    agentId: string,
    credential: { get(): Credential; set(next: Credential): void },
  ): () => Promise<RefusalVerdict> {
    let replaced = false
    return async () => {
      if (!replaced) {
        replaced = true
        const replacement = await this.credentials.replaceRefused(integration, runtime, credential.get())
        if (replacement) {
          credential.set(replacement)
          return 'retry'
        }
      }
      await this.confirm(integration, runtime, agentId)
      return 'done'
    }
  }

  /** Flags the integration only if the platform refuses its stored credential to its identify call. */
  private async confirm(
    integration: IntegrationRow,
    runtime: PlatformRuntime,
    agentId: string,
  ): Promise<void> {
    const stored = await this.integrations.credentialsOf(integration.id)
    if (!stored?.credentials || stored.status !== 'active') return
    // Refreshed first if it is about to expire; the flag below then finds the stored credential
    // changed and leaves the integration alone.
    const credential = await this.credentials.current(
      { ...integration, credentials: stored.credentials, status: stored.status },
      runtime,
    )
    const api = this.clients.forCredential(runtime, integration.fields, credential, agentId)
    try {
      await runtime.definition.identify(
        api,
        integration.fields,
        credential.kind === 'oauth2' ? (credential.extra ?? {}) : {},
      )
    } catch (err) {
      // Anything else (the platform down, a timeout) proves nothing about the credential.
      if (err instanceof AppError && err.extras.credentialFailure) {
        // Flagged only if storage still holds the credential refused (a refresh may have replaced it).
        await this.integrations.markNeedsReconnection(integration.id, stored.credentials)
      }
    }
  }
}
