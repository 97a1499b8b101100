import { jsonResponse, type SandboxResponse } from '../kit/http.ts'
import { SANDBOX_MODELS, SANDBOX_MODELS_CREATED } from '../model-kit/models.ts'
import { unknownModel } from './errors.ts'

/** `GET /v1/models` (`ListModelsResponse`) and `GET /v1/models/{model}` (`Model`). */

const modelJson = (id: string) => ({
  id,
  object: 'model',
  created: SANDBOX_MODELS_CREATED,
  owned_by: 'switchyard-sandbox',
})

export function listModels(headers: Record<string, string>): SandboxResponse {
  return jsonResponse(200, { object: 'list', data: SANDBOX_MODELS.map(modelJson) }, headers)
}

export function getModel(id: string, headers: Record<string, string>): SandboxResponse {
  if (!(SANDBOX_MODELS as readonly string[]).includes(id)) {
    const refused = unknownModel(id)
    return { ...refused, headers: { ...refused.headers, ...headers } }
  }
  return jsonResponse(200, modelJson(id), headers)
}
