import type { SandboxResponse } from '../kit/http.ts'

/** A request the provider refuses, thrown by a request parser with the provider's own answer. */
export class Refusal extends Error {
  constructor(readonly response: SandboxResponse) {
    super(`refused with ${response.status}`)
  }
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
