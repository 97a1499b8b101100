// Model connections a person may use (REST: /v1/model-connections; docs/model-agents.md).
import { request } from './api.ts'
import type { Schema } from './api-shapes.ts'

export type ModelConnection = Schema<'ModelConnection'>

export const modelConnectionsApi = {
  /** Yours, shared ones, and (outside production) the keyless sandbox model. */
  list: () =>
    request<{ model_connections?: ModelConnection[] }>('GET', '/v1/model-connections').then(
      (r) => r.model_connections ?? [],
    ),
}

/** The names the local model sandbox answers to (docs/model-agents.md, "Model connections"). */
export const SANDBOX_MODEL_NAMES = ['sandbox-model', 'sandbox-model-mini'] as const
