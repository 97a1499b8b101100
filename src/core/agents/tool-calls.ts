import type { Summary } from '../tools/define.ts'
import type { RunTokenScope } from './run-scope.ts'
import type { RunState } from './run-state.ts'
import type { Attempt } from './runs.ts'
import { errorOf } from './step-runner.ts'

/**
 * Tool steps an external agent calls with its run token land on the run's timeline, in the order
 * they started, with their input, output or error (issue 10, "External").
 */
export class ToolCallRecorder {
  constructor(
    private readonly state: RunState,
    private readonly scope: RunTokenScope,
  ) {}

  /** A call outside the run's integrations is refused before it reaches the timeline or the platform. */
  async record(
    runId: string,
    userId: string,
    toolId: string,
    integration: unknown,
    input: unknown,
    call: () => Promise<{ output: unknown; summary: Summary | null }>,
  ): Promise<{ output: unknown; summary: Summary | null }> {
    await this.scope.check(runId, userId, toolId, integration)
    const started = Date.now()
    const seq = await this.claimSeq(
      runId,
      toolId,
      typeof integration === 'string' ? integration : null,
      input,
    )
    try {
      const result = await call()
      const attempts: Attempt[] = [
        { at: new Date(started).toISOString(), outcome: 'succeeded', duration_ms: Date.now() - started },
      ]
      await this.state.end(
        runId,
        seq,
        { status: 'succeeded', output: result.output, summary: result.summary },
        attempts,
      )
      return result
    } catch (err) {
      const error = errorOf(err)
      const attempts: Attempt[] = [
        {
          at: new Date(started).toISOString(),
          outcome: 'failed',
          error: error.message,
          duration_ms: Date.now() - started,
        },
      ]
      await this.state.end(runId, seq, { status: 'failed', error }, attempts)
      throw err
    }
  }

  private claimSeq(
    runId: string,
    toolId: string,
    integration: string | null,
    input: unknown,
  ): Promise<number> {
    return this.state.append(
      runId,
      { kind: 'tool_call', toolId, input, integrationId: integration },
      (seq) => `${toolId}#${seq}`,
    )
  }
}
