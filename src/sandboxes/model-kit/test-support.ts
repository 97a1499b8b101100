import { withControl, type ControlCall } from '../kit/test-support.ts'
import { serveSandboxes } from '../kit/start.ts'
import { anthropicSandbox } from '../anthropic/index.ts'
import { openaiSandbox } from '../openai/index.ts'

/** Helpers for the model sandboxes' tests (real HTTP on 127.0.0.1): both served on one port. */

export const OPENAI_KEY = 'sk-test-openai'
export const ANTHROPIC_KEY = 'sk-ant-test'

export interface TestModelSandboxes {
  /** `http://127.0.0.1:port/openai/v1`: what OpenAI's clients take as base URL. */
  openaiBase: string
  /** `http://127.0.0.1:port/anthropic`: what Anthropic's SDK takes as base URL. */
  anthropicBase: string
  openai: ControlCall
  anthropic: ControlCall
  close(): Promise<void>
}

export async function startModelSandboxes(): Promise<TestModelSandboxes> {
  const served = await serveSandboxes([
    { prefix: '/openai', plugin: openaiSandbox() },
    { prefix: '/anthropic', plugin: anthropicSandbox() },
  ])
  return {
    openaiBase: `${served.origin}/openai/v1`,
    anthropicBase: `${served.origin}/anthropic`,
    openai: withControl({ url: `${served.origin}/openai` }).control,
    anthropic: withControl({ url: `${served.origin}/anthropic` }).control,
    close: served.close,
  }
}

/** A raw POST to a model endpoint, for the tests that read status, headers and text as sent. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await response.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: response.status, headers: response.headers, text, json }
}

/** The `data:` payloads of a server-sent events text, parsed (`[DONE]` kept as the string). */
export function sseData(text: string): any[] {
  return text
    .split('\n\n')
    .map((block) => block.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line): line is string => line !== undefined)
    .map((line) => line.slice('data: '.length))
    .map((data) => (data === '[DONE]' ? data : JSON.parse(data)))
}

/** The `event:` names of a server-sent events text, in order. */
export function sseNames(text: string): string[] {
  return [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1] as string)
}

export const openaiHeaders = (key = OPENAI_KEY) => ({ authorization: `Bearer ${key}` })
export const anthropicHeaders = (key = ANTHROPIC_KEY) => ({
  'x-api-key': key,
  'anthropic-version': '2023-06-01',
})
