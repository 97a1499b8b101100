import { requirePlan } from '../access/plans.ts'
import type { User } from '../access/users.ts'
import { AppError, notFound } from '../errors.ts'
import { noMetrics, secondsSince, type Metrics } from '../metrics.ts'
import type { RegisteredTool, ToolRegistry } from './catalog.ts'
import type { AnyTool, Summary, SummaryContext } from './define.ts'
import { integrationRefOf, type StepContexts } from './step-context.ts'

/**
 * Every tool step run takes the same road (docs/architecture.md, "The road of a tool step"): validate, resolve the integration after an
 * ownership check, make sure the token is fresh, draw on the credential's budget, call, map errors.
 */
export class ToolExecutor {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly contexts: StepContexts,
    private readonly metrics: Metrics = noMetrics,
  ) {}

  /** `agentId` names who is calling (an API key, a session, an agent run): budgets are fair between them. */
  async run(
    user: User,
    toolId: string,
    integrationRef: unknown,
    rawInput: unknown,
    agentId: string = user.id,
  ): Promise<unknown> {
    return (await this.runAndSummarize(user, toolId, integrationRef, rawInput, agentId)).output
  }

  /** A run with the one line a person reads first; `summary` is null for steps that declare none. */
  async runAndSummarize(
    user: User,
    toolId: string,
    integrationRef: unknown,
    rawInput: unknown,
    agentId: string = user.id,
  ): Promise<{ output: unknown; summary: Summary | null }> {
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

  private async runRegistered(
    registered: RegisteredTool,
    user: User,
    integrationRef: unknown,
    rawInput: unknown,
    agentId: string,
  ): Promise<{ output: unknown; summary: Summary | null }> {
    const { tool, platform } = registered
    const ref = integrationRefOf(platform, integrationRef)
    const input = registered.parseInput(rawInput ?? {})
    if (tool.requiredPlan) requirePlan(user.plan, tool.requiredPlan, tool.title)

    const { ctx, runtime } = await this.contexts.open(user, platform, ref, agentId)
    const output = await tool.run(ctx, input)
    const checked = registered.checkOutput(output)
    if (!checked.success) {
      // The platform answered in a shape we do not know: say so rather than pass on garbage.
      throw new AppError(
        'upstream_error',
        `${platform.title} answered ${tool.title} in an unexpected shape: ${checked.message}`,
      )
    }
    return {
      output: checked.data,
      summary: summarize(tool, checked.data, {
        input,
        integration: ctx.integration,
        baseUrl: runtime.baseUrl(ctx.integration.fields),
      }),
    }
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
