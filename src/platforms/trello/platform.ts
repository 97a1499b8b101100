import { z } from 'zod'
import { consumerSecretWorks } from '../../core/connections/oauth1-flow.ts'
import { accountName } from '../../core/platforms/account-name.ts'
import { defineApiCallTool } from '../../core/proxy/api-call-tool.ts'
import type { RateLimitFacts } from '../../core/limits/rate-limit-headers.ts'
import type { ApiFacts, PastedCredentialFacts, PlatformDefinition } from '../../core/platforms/types.ts'
import {
  APP_SECRET_AS_TOKEN,
  describeError,
  diagnose,
  isCredentialFailure,
  TROUBLESHOOTING_RULES,
} from './errors.ts'
import { trelloTools } from './tools/index.ts'
import { trelloTriggers } from './triggers/index.ts'
import { trelloWebhooks } from './webhooks.ts'

const api: ApiFacts = {
  baseUrl: () => 'https://api.trello.com',
  pathPrefix: '/1/',
  pathHelp: { prefix: '/1/', example: '/1/members/me/boards' },
  mapExample: { name: 'board_id', path: 'body[0].id' },
  apiCallMethods: ['GET', 'POST', 'PUT', 'DELETE'],
  usefulHeaders: [],
}

/** Authorization pages live on trello.com, the API on api.trello.com; the sandbox serves both. */
const webBase = (base: string) => base.replace('://api.trello.com', '://trello.com')

const AppKey = z
  .string({ error: 'paste the API key of your app' })
  .trim()
  .regex(/^[0-9a-f]{32}$/i, 'an API key is 32 hexadecimal characters')
const Token = z
  .string({ error: 'paste the token' })
  .trim()
  .regex(
    /^([0-9a-f]{64}|ATTA[0-9A-Za-z]{60,100})$/,
    'a token is 64 hexadecimal characters, or starts with ATTA',
  )

/** The address where a person creates a token for a key (shown by the product next to the field). */
export function tokenPageUrl(base: string, key: string): string {
  const url = new URL(`${webBase(base)}/1/authorize`)
  for (const [k, v] of Object.entries({
    expiration: 'never',
    name: 'Switchyard',
    scope: 'read,write',
    response_type: 'token',
    key,
  }))
    url.searchParams.set(k, v)
  return url.toString()
}

// Trello sends remaining counts per token and per key, but no reset time: windows are 10 s.
const rateLimit: RateLimitFacts = {
  limitHeader: 'x-rate-limit-api-token-max',
  remainingHeader: 'x-rate-limit-api-token-remaining',
  defaultRetryAfterSeconds: 10,
}

/** An API key plus token, pasted by the person (server-to-server use, service accounts). */
const pastedKeyAndToken: PastedCredentialFacts = {
  fields: [
    {
      name: 'key',
      label: 'API key',
      secret: true,
      schema: AppKey,
      help: "From your app's page in the Trello developer admin area (an app registration needs a name).",
    },
    {
      name: 'token',
      label: 'Token',
      secret: true,
      schema: Token,
      help: 'Open the token page built for your key, press Allow and paste the token it shows. Not the app secret.',
    },
  ],
  methodName: 'api_key',
  identity: { token: 'token', app: 'key' },
  // Credentials travel in a header, never in a URL (query strings end up in logs).
  headers: (values) => ({
    authorization: `OAuth oauth_consumer_key="${values.key}", oauth_token="${values.token}"`,
  }),
  async explainRejection(values, base) {
    if (await consumerSecretWorks(`${webBase(base)}/1/OAuthGetRequestToken`, values.key, values.token)) {
      return {
        message: `The value pasted as the token is your app's secret, not a token. Create a token at ${tokenPageUrl(base, values.key)} and paste that instead.`,
        error: APP_SECRET_AS_TOKEN,
      }
    }
    return undefined
  },
  helpUrl: (base, values) =>
    values.key && /^[0-9a-f]{32}$/i.test(values.key) ? tokenPageUrl(base, values.key) : undefined,
}

export const trello: PlatformDefinition = {
  id: 'trello',
  title: 'Trello',
  kind: 'board',
  connectionFields: [],
  auth: {
    interactive: {
      kind: 'oauth1',
      requestTokenUrl: (base) => `${webBase(base)}/1/OAuthGetRequestToken`,
      authorizeUrl: (base) => `${webBase(base)}/1/OAuthAuthorizeToken`,
      accessTokenUrl: (base) => `${webBase(base)}/1/OAuthGetAccessToken`,
      // Read and write on boards, lists and cards; a token that does not expire (reconnect to revoke).
      authorizeParams: { name: 'Switchyard', scope: 'read,write', expiration: 'never' },
      clientIdEnv: 'TRELLO_API_KEY',
      clientSecretEnv: 'TRELLO_API_SECRET',
    },
    pasted: pastedKeyAndToken,
  },
  api,
  // 100 requests per 10 s per token and 300 per 10 s per API key (docs/platforms/trello.md, "Facts the product relies on").
  rateBudget: { perToken: { limit: 100, windowMs: 10_000 }, perApp: { limit: 300, windowMs: 10_000 } },
  rateLimit,

  async identify(client) {
    const member = await client.get('/1/members/me', { fields: 'id,username,fullName' })
    return { externalId: member.id, accountName: accountName(member.fullName, member.username) }
  },
  troubleshooting: { rules: TROUBLESHOOTING_RULES, diagnose },
  describeError,
  isCredentialFailure,
  tools: [
    ...trelloTools,
    defineApiCallTool({ id: 'trello', title: 'Trello', api, pasted: pastedKeyAndToken, rateLimit }),
  ],
  triggers: trelloTriggers,
  webhooks: trelloWebhooks,
}
