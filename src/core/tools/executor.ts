import { requirePlan } from '../access/plans.ts'
import type { User } from '../access/users.ts'
import type { ApiClientFactory } from '../connections/clients.ts'
import { needsRefresh, type Credentials } from '../connections/credentials.ts'
import type { Integrations } from '../connections/integrations.ts'
import type { CredentialRefusals } from '../connections/refusals.ts'
import { AppError, invalidInput, notFound } from '../errors.ts'
import { noMetrics, secondsSince, type Metrics } from '../metrics.ts'
import type { PlatformRuntime } from '../platforms/runtime.ts'
import type { RegisteredTool, ToolRegistry } from './catalog.ts'
import type { AnyTool, Summary, SummaryContext } from './define.ts'

/**
 * Every tool step run takes the same road (docs/architecture.md, "The road of a tool step"): validate, resolve the integration after an
 * ownership check, make sure the token is fresh, draw on the credential's budget, call, map errors.
 */
export class ToolExecutor {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly runtimes: Map<string, PlatformRuntime>,
    private readonly integrations: Integrations,
    private readonly credentials: Credentials,
    private readonly clients: ApiClientFactory,
    private readonly refusals: CredentialRefusals,
    private readonly metrics: Metrics = noMetrics,
  ) {}

  /** `agentId` names who is calling (an API key, a session, an agent run): budgets are fair between them. */
  async run(user: User, toolId: string, integrationRef: unknown, rawInput: unknown, agentId: string = user.id): Promise<unknown> {
    return (await this.runAndSummarize(user, toolId, integrationRef, rawInput, agentId)).output
  }

  /** A run with the one line a person reads first; `summary` is null for steps that declare none. */
  async runAndSummarize(user: User, toolId: string, integrationRef: unknown, rawInput: unknown, agentId: string = user.id): Promise<{ output: unknown; summary: Summary | null }> {
    const registered = this.registry.get(toolId)
    // An unknown id is not counted: labels come from the catalogue, never from what a caller typed.
    if (!registered) throw notFound(`tool ${toolId}`)
    const started = performance.now()
    let outcome = 'ok'
    try {
      return await this.runRegistered(registered, user, integrationRef, rawInput, agentId)
    } catch (err) {
      outcome = err instanceof AppError ? err.code : 'internal'
      throw err
    } finally {
      this.metrics.toolCall(registered.tool.id, registered.platform.id, outcome, secondsSince(started))
    }
  }

  private async runRegistered(registered: RegisteredTool, user: User, integrationRef: unknown, rawInput: unknown, agentId: string): Promise<{ output: unknown; summary: Summary | null }> {
    const { tool, platform } = registered
    if (typeof integrationRef !== 'string' || integrationRef.trim() === '') {
      throw invalidInput([{ field: 'integration', message: `give the id or account name of a ${platform.title} integration` }])
    }
    const input = registered.parseInput(rawInput ?? {})
    if (tool.requiredPlan) requirePlan(user.plan, tool.requiredPlan, tool.title)

    const integration = await this.integrations.resolve(user.id, platform.id, integrationRef.trim())
    const runtime = this.runtimes.get(platform.id)!
    // Fails early and clearly when disconnected; later attempts reuse the token until it needs refreshing.
    let credential = await this.credentials.current(integration, runtime)
    const fresh = async () => (needsRefresh(credential) ? (credential = await this.credentials.current(integration, runtime)) : credential)
    const onRefused = this.refusals.forRun(integration, runtime, agentId, { get: () => credential, set: (next) => { credential = next } })
    const api = this.clients.create(runtime, integration.fields, credential, fresh, agentId, onRefused)
    const withPastedCredentials = (values: Record<string, string>) =>
      this.clients.forCredential(runtime, integration.fields, { kind: 'pasted', values, issued_at: Date.now() }, agentId)
    const seen = { id: integration.id, accountName: integration.account_name, fields: integration.fields }
    const output = await tool.run({ api, integration: seen, withPastedCredentials }, input)
    const checked = registered.checkOutput(output)
    if (!checked.success) {
      // The platform answered in a shape we do not know: say so rather than pass on garbage.
      throw new AppError('upstream_error', `${platform.title} answered ${tool.title} in an unexpected shape: ${checked.message}`)
    }
    return { output: checked.data, summary: summarize(tool, checked.data, { input, integration: seen, baseUrl: runtime.baseUrl(integration.fields) }) }
  }
}

/** A summary is a courtesy: a step whose summary throws on an odd output still returns its output. */
function summarize(tool: AnyTool, output: unknown, ctx: SummaryContext): Summary | null {
  if (!tool.summarize) return null
  try {
    return tool.summarize(output, ctx)
  } catch {
    return null
  }
}
