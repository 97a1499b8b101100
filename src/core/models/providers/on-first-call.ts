import type { ModelClientFactory } from '../client.ts'

/**
 * The AI SDK and its providers, loaded on the first model call rather than at start: they hold
 * several MiB that an instance running no model agent never uses (docs/benchmarks.md, "Memory").
 * Loaded once per process: an `import()` per client went through the module loader on every model
 * call (under tsx, a round trip to its loader thread, most of a millisecond).
 */
let sdk: Promise<typeof import('./ai-sdk.ts')> | undefined

export const aiSdkOnFirstCall: ModelClientFactory = (endpoint) => {
  let client: ReturnType<typeof import('./ai-sdk.ts').aiSdkClient> | undefined
  return {
    async call(request) {
      sdk ??= import('./ai-sdk.ts')
      client ??= (await sdk).aiSdkClient(endpoint)
      return client.call(request)
    },
  }
}
