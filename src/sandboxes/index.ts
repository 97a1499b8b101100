import type { FastifyPluginAsync } from 'fastify'
import type { SandboxBinding } from '../core/platforms/runtime.ts'
import type { OAuthClient } from '../core/platforms/types.ts'
import { anthropicSandbox } from './anthropic/index.ts'
import { openaiSandbox } from './openai/index.ts'
import { trelloSandbox } from './trello/index.ts'
import { SEED as TRELLO_SEED } from './trello/seed.ts'
import { vercelSandbox } from './vercel/index.ts'
import { SEED as VERCEL_SEED } from './vercel/seed.ts'
import { zendeskSandbox } from './zendesk/index.ts'
import { SEED_CLIENT as ZENDESK_CLIENT } from './zendesk/seed.ts'

/** One emulator: where it is mounted, and what the product needs to know to use it. */
export interface SandboxDefinition {
  /** The id of the platform it emulates. */
  platform: string
  title: string
  prefix: string
  plugin(): FastifyPluginAsync
  /** The OAuth client the sandbox has pre-registered for Switchyard. */
  client: OAuthClient
  /** An account's base URL on the mounted sandbox, given the integration's connection fields. */
  accountBaseUrl(mountedUrl: string, fields: Record<string, string>): string
}

/** The sandbox registry: one line per emulated platform. Only the composition root reads it. */
export const sandboxes: SandboxDefinition[] = [
  {
    platform: 'zendesk',
    title: 'Zendesk',
    prefix: '/zendesk',
    plugin: () => zendeskSandbox(),
    client: { clientId: ZENDESK_CLIENT.identifier, clientSecret: ZENDESK_CLIENT.secret },
    // Each account lives under its own path segment, since *.localhost does not resolve everywhere.
    accountBaseUrl: (url, fields) => `${url}/${fields.subdomain}`,
  },
  {
    platform: 'trello',
    title: 'Trello',
    prefix: '/trello',
    plugin: () => trelloSandbox(),
    client: { clientId: TRELLO_SEED.app.key, clientSecret: TRELLO_SEED.app.secret },
    // The sandbox serves the web pages (trello.com) and the API (api.trello.com) from one base.
    accountBaseUrl: (url) => url,
  },
  {
    platform: 'vercel',
    title: 'Vercel',
    prefix: '/vercel',
    plugin: () => vercelSandbox(),
    client: {
      clientId: VERCEL_SEED.integration.clientId,
      clientSecret: VERCEL_SEED.integration.clientSecret,
      appName: VERCEL_SEED.integration.slug,
    },
    accountBaseUrl: (url) => url,
  },
]

/** What the product is told about each sandbox served at `sandboxUrl`, by platform id. */
export function sandboxBindings(sandboxUrl: string): Map<string, SandboxBinding> {
  return new Map(
    sandboxes.map((s) => [
      s.platform,
      {
        client: s.client,
        baseUrl: (fields: Record<string, string>) => s.accountBaseUrl(`${sandboxUrl}${s.prefix}`, fields),
        home: `${sandboxUrl}${s.prefix}`,
      },
    ]),
  )
}

/**
 * One model provider's emulator (docs/sandbox.md, "Model sandbox"): where it is mounted, the
 * base URL its clients take, and a key it accepts.
 */
export interface ModelSandboxDefinition {
  provider: 'openai' | 'anthropic'
  title: string
  prefix: string
  plugin(): FastifyPluginAsync
  /** What follows the mount in the base URL a client is given (`/v1` for OpenAI's clients). */
  basePath: string
  /** A key the sandbox accepts (it accepts any key of the provider's shape). */
  apiKey: string
}

/** The model sandbox registry: one line per emulated model provider. */
export const modelSandboxes: ModelSandboxDefinition[] = [
  {
    provider: 'openai',
    title: 'OpenAI',
    prefix: '/openai',
    plugin: () => openaiSandbox(),
    basePath: '/v1',
    apiKey: 'sk-sandbox',
  },
  {
    provider: 'anthropic',
    title: 'Anthropic',
    prefix: '/anthropic',
    plugin: () => anthropicSandbox(),
    basePath: '',
    apiKey: 'sk-ant-sandbox',
  },
]

/** What the product is told about each model sandbox served at `sandboxUrl`, by provider. */
export function modelSandboxBindings(sandboxUrl: string): Map<string, { baseUrl: string; apiKey: string }> {
  return new Map(
    modelSandboxes.map((s) => [
      s.provider,
      { baseUrl: `${sandboxUrl}${s.prefix}${s.basePath}`, apiKey: s.apiKey },
    ]),
  )
}
