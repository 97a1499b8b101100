import type { User } from '../access/users.ts'
import type { ApiClientFactory } from '../connections/clients.ts'
import { needsRefresh, type Credentials } from '../connections/credentials.ts'
import type { Integrations } from '../connections/integrations.ts'
import type { CredentialRefusals } from '../connections/refusals.ts'
import { invalidInput } from '../errors.ts'
import type { PlatformRuntime } from '../platforms/runtime.ts'
import type { PlatformDefinition } from '../platforms/types.ts'
import type { ToolContext } from './define.ts'

/** The integration a caller named: an id or account name, checked before anything else is done. */
export function integrationRefOf(platform: PlatformDefinition, ref: unknown): string {
  if (typeof ref !== 'string' || ref.trim() === '') {
    throw invalidInput([
      { field: 'integration', message: `give the id or account name of a ${platform.title} integration` },
    ])
  }
  return ref.trim()
}

/**
 * What a step, or an options source, runs with: the caller's own integration (resolved after an
 * ownership check) and the authenticated client on it, with a fresh credential, the credential's
 * budget and the handling of a platform's 401 (docs/architecture.md, "The road of a tool step").
 * Runs and option lists share it, so a picker never reaches further than the step itself could.
 */
export class StepContexts {
  constructor(
    private readonly runtimes: Map<string, PlatformRuntime>,
    private readonly integrations: Integrations,
    private readonly credentials: Credentials,
    private readonly clients: ApiClientFactory,
    private readonly refusals: CredentialRefusals,
  ) {}

  /** `agentId` names who is calling (an API key, a session, an agent run): budgets are fair between them. */
  async open(
    user: User,
    platform: PlatformDefinition,
    integrationRef: string,
    agentId: string,
  ): Promise<{ ctx: ToolContext; runtime: PlatformRuntime }> {
    const integration = await this.integrations.resolve(user.id, platform.id, integrationRef)
    const runtime = this.runtimes.get(platform.id)!
    // Fails early and clearly when disconnected; later attempts reuse the token until it needs refreshing.
    let credential = await this.credentials.current(integration, runtime)
    const fresh = async () =>
      needsRefresh(credential)
        ? (credential = await this.credentials.current(integration, runtime))
        : credential
    const onRefused = this.refusals.forRun(integration, runtime, agentId, {
      get: () => credential,
      set: (next) => {
        credential = next
      },
    })
    const api = this.clients.create(runtime, integration.fields, credential, fresh, agentId, onRefused)
    const withPastedCredentials = (values: Record<string, string>) =>
      this.clients.forCredential(
        runtime,
        integration.fields,
        { kind: 'pasted', values, issued_at: Date.now() },
        agentId,
      )
    const seen = { id: integration.id, accountName: integration.account_name, fields: integration.fields }
    return { ctx: { api, integration: seen, withPastedCredentials }, runtime }
  }
}
