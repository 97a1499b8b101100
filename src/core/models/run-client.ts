import type { ModelClient, ModelClientFactory, ModelEndpoint } from './client.ts'
import type { ModelConnections } from './connections.ts'

/**
 * The model client of one execution of a run. The connection is looked up before every model call,
 * so a key rotated or a base URL changed while the run is in progress is used by its next call
 * (docs/model-agents.md, "Model connections"); the client is made again only when they changed. The
 * lookup is of the connections' cache, which every instance drops on a change (connections.ts).
 */
export class ModelOfRun {
  private made: { endpoint: ModelEndpoint; client: ModelClient } | undefined

  constructor(
    private readonly connections: ModelConnections,
    private readonly clientOf: ModelClientFactory,
    private readonly userId: string,
    private readonly connection: string,
  ) {}

  async client(): Promise<ModelClient> {
    const endpoint = await this.connections.endpoint(this.userId, this.connection)
    const was = this.made?.endpoint
    if (
      !this.made ||
      was?.protocol !== endpoint.protocol ||
      was.baseUrl !== endpoint.baseUrl ||
      was.apiKey !== endpoint.apiKey
    )
      this.made = { endpoint, client: this.clientOf(endpoint) }
    return this.made.client
  }
}
