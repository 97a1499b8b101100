import type { ModelClient, ModelClientFactory } from '../client.ts'

/**
 * The AI SDK's client, with the SDK and its providers loaded on the first model call rather than at
 * start: they hold several MiB that an instance running no model agent never uses
 * (docs/benchmarks.md, "Memory").
 */
export const aiSdkOnFirstCall: ModelClientFactory = (endpoint) => {
  let client: Promise<ModelClient> | undefined
  return {
    async call(request) {
      client ??= import('./ai-sdk.ts').then((sdk) => sdk.aiSdkClient(endpoint))
      return (await client).call(request)
    },
  }
}
