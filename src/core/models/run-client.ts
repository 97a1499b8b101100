import type { ModelClient, ModelClientFactory } from './client.ts'
import type { ModelConnections } from './connections.ts'

/**
 * The model client of one execution of a run, made on its first model call and kept for the others:
 * the connection's row read and its key opened once per execution rather than once per call. A
 * connection removed or changed meanwhile is met by the run's next execution (after a restart, an
 * approval, a retry put back in the queue).
 */
export class ModelOfRun {
  private made: Promise<ModelClient> | undefined

  constructor(
    private readonly connections: ModelConnections,
    private readonly clientOf: ModelClientFactory,
    private readonly userId: string,
    private readonly connection: string,
  ) {}

  client(): Promise<ModelClient> {
    this.made ??= this.connections.endpoint(this.userId, this.connection).then((e) => this.clientOf(e))
    return this.made
  }
}
