import { badRequest } from './errors.ts'
import { isRecord, type SandboxResponse } from './http.ts'

/** Small validators returning Vercel's 400 with a message naming the field. */

export class Invalid extends Error {
  constructor(readonly response: SandboxResponse) {
    super('invalid')
  }
}

export function invalid(message: string): never {
  throw new Invalid(badRequest(`Invalid request: ${message}`))
}

export function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined) return {}
  if (!isRecord(body)) invalid('the body should be an object')
  return body
}

export function optString(body: Record<string, unknown>, key: string, label = key): string | undefined {
  const v = body[key]
  if (v === undefined) return undefined
  if (typeof v !== 'string') invalid(`\`${label}\` should be string`)
  return v
}

export function optNullableString(body: Record<string, unknown>, key: string): string | null | undefined {
  if (body[key] === null) return null
  return optString(body, key)
}

export function reqString(body: Record<string, unknown>, key: string, label = key): string {
  const v = optString(body, key, label)
  if (v === undefined || v === '') invalid(`missing required property \`${label}\``)
  return v
}

/** A non-negative integer query parameter (ms timestamps, limits). */
export function queryInt(
  query: URLSearchParams,
  key: string,
  opts: { min?: number; max?: number } = {},
): number | undefined {
  const raw = query.get(key)
  if (raw === null || raw === '') return undefined
  const n = Number(raw)
  if (!Number.isInteger(n) || n < (opts.min ?? 0) || (opts.max !== undefined && n > opts.max)) {
    invalid(
      `query parameter \`${key}\` should be an integer${opts.max !== undefined ? ` between ${opts.min ?? 0} and ${opts.max}` : ''}`,
    )
  }
  return n
}

export function queryList(query: URLSearchParams, key: string): string[] {
  return query
    .getAll(key)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean)
}

export const queryFlag = (query: URLSearchParams, key: string): boolean =>
  ['1', 'true'].includes(query.get(key) ?? '')

/** Wraps a handler so `invalid()` becomes the 400 response. */
export function guarded<A extends unknown[]>(
  fn: (...args: A) => SandboxResponse,
): (...args: A) => SandboxResponse {
  return (...args) => {
    try {
      return fn(...args)
    } catch (error) {
      if (error instanceof Invalid) return error.response
      throw error
    }
  }
}

/** Frameworks accepted by `POST /v11/projects` (V-OAS enum, abridged to the common ones plus the full list head). */
export const FRAMEWORKS = new Set(
  'blitzjs nextjs gatsby remix react-router astro hexo eleventy docusaurus-2 docusaurus preact solidstart-1 solidstart dojo ember vue scully ionic-angular angular polymer svelte sveltekit sveltekit-1 ionic-react create-react-app gridsome umijs sapper saber stencil nuxtjs redwoodjs hugo jekyll brunch middleman zola hydrogen vite vitepress vuepress parcel fastapi flask fasthtml sanity-v3 sanity storybook nitro hono express h3 nestjs fastify xmcp'.split(
    ' ',
  ),
)

export const NODE_VERSIONS = ['22.x', '20.x', '18.x', '16.x']

/** Project names: lowercase, up to 100 chars, letters, digits, `.`, `_`, `-`, no `---` (Vercel's documented rule). */
export function validProjectName(name: string): boolean {
  return name.length > 0 && name.length <= 100 && /^[a-z0-9._-]+$/.test(name) && !name.includes('---')
}
