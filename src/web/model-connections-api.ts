// Model connections a person may use (REST: /v1/model-connections; docs/model-agents.md).
import { request } from './api.ts'
import type { RequestBody, Schema } from './api-shapes.ts'

export type ModelConnection = Schema<'ModelConnection'>
export type ModelConnectionUsage = Schema<'ModelConnectionUsage'>
export type NewModelConnection = RequestBody<'/v1/model-connections', 'post'>
export type ModelProtocol = ModelConnection['protocol']

const enc = encodeURIComponent

export const modelConnectionsApi = {
  /** Yours, shared ones, and (outside production) the keyless sandbox model. */
  list: () =>
    request<{ model_connections?: ModelConnection[] }>('GET', '/v1/model-connections').then(
      (r) => r.model_connections ?? [],
    ),
  /** The key goes in this one request body and is never answered back. */
  create: (body: NewModelConnection) => request<ModelConnection>('POST', '/v1/model-connections', body),
  /** A new key (or base URL, name) in place; the key is never answered back. */
  update: (id: string, body: RequestBody<'/v1/model-connections/{id}', 'patch'>) =>
    request<ModelConnection>('PATCH', `/v1/model-connections/${enc(id)}`, body),
  usage: (id: string) => request<ModelConnectionUsage>('GET', `/v1/model-connections/${enc(id)}/usage`),
  remove: (id: string) => request<void>('DELETE', `/v1/model-connections/${enc(id)}`),
}

const CHANNEL = 'switchyard:model-connections'

/** Tells the app's other tabs (a model agent editor waiting for it) that the list changed. */
export function announceConnectionsChanged(): void {
  if (typeof BroadcastChannel === 'undefined') return
  const channel = new BroadcastChannel(CHANNEL)
  channel.postMessage('changed')
  channel.close()
}

/** Calls `onChange` when another tab added or removed a model connection; returns the unsubscribe. */
export function onConnectionsChanged(onChange: () => void): () => void {
  if (typeof BroadcastChannel === 'undefined') return () => {}
  const channel = new BroadcastChannel(CHANNEL)
  channel.onmessage = onChange
  return () => channel.close()
}

/** The names the local model sandbox answers to (docs/model-agents.md, "Model connections"). */
export const SANDBOX_MODEL_NAMES = ['sandbox-model', 'sandbox-model-mini'] as const

/** Each protocol as a person knows it, with the base URL its provider serves it at. */
export const PROTOCOL_CHOICES: ReadonlyArray<{
  protocol: ModelProtocol
  title: string
  help: string
  baseUrl: string
  needsKey: boolean
}> = [
  {
    protocol: 'openai-chat',
    title: 'OpenAI, Chat Completions',
    help: 'OpenAI’s /chat/completions API.',
    baseUrl: 'https://api.openai.com/v1',
    needsKey: true,
  },
  {
    protocol: 'openai-responses',
    title: 'OpenAI, Responses',
    help: 'OpenAI’s newer /responses API.',
    baseUrl: 'https://api.openai.com/v1',
    needsKey: true,
  },
  {
    protocol: 'anthropic',
    title: 'Anthropic, Messages',
    help: 'Claude models through Anthropic’s /v1/messages API.',
    baseUrl: 'https://api.anthropic.com',
    needsKey: true,
  },
  {
    protocol: 'openai-compatible',
    title: 'OpenAI-compatible server',
    help: 'Ollama, vLLM, LM Studio or any server that speaks Chat Completions, by its base URL.',
    baseUrl: '',
    needsKey: false,
  },
]

export const protocolTitle = (p: string) => PROTOCOL_CHOICES.find((c) => c.protocol === p)?.title ?? p
