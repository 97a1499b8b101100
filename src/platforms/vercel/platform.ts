import { accountName } from '../../core/platforms/account-name.ts'
import { defineApiCallTool } from '../../core/proxy/api-call-tool.ts'
import type { RateLimitFacts } from '../../core/limits/rate-limit-headers.ts'
import type { ApiFacts, PlatformDefinition } from '../../core/platforms/types.ts'
import { describeError, diagnose, TROUBLESHOOTING_RULES } from './errors.ts'
import { vercelTools } from './tools/index.ts'
import { vercelTriggers } from './triggers/index.ts'
import { vercelWebhooks } from './webhooks.ts'

const api: ApiFacts = {
  baseUrl: () => 'https://api.vercel.com',
  // Each endpoint group has its own version segment (/v6/deployments, /v13/deployments/{id}, …).
  pathPrefix: /^\/v\d{1,2}\//,
  pathHelp: { prefix: 'an API version such as /v13/', example: '/v13/deployments/dpl_1a2b3c' },
  mapExample: { name: 'deployment_url', path: 'body.url' },
  apiCallMethods: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'],
  usefulHeaders: ['x-vercel-id'],
  // A team integration's token acts for that team only when every request names it.
  defaultQuery: (fields): Record<string, string> => (fields.teamId ? { teamId: fields.teamId } : {}),
}

const rateLimit: RateLimitFacts = {
  limitHeader: 'x-ratelimit-limit',
  remainingHeader: 'x-ratelimit-remaining',
  resetHeader: 'x-ratelimit-reset',
  resetUnit: 'epoch-seconds',
  defaultRetryAfterSeconds: 60,
}

/** The install page lives on vercel.com, the API on api.vercel.com; the sandbox serves both. */
const webBase = (base: string) => base.replace('://api.vercel.com', '://vercel.com')

export const vercel: PlatformDefinition = {
  id: 'vercel',
  title: 'Vercel',
  kind: 'deployment',
  connectionFields: [],
  auth: {
    interactive: {
      kind: 'oauth2',
      popup: true, // Vercel's integration install page is designed to open in a pop-up
      authorizeUrl: (base, client) => `${webBase(base)}/integrations/${client.appName}/new`,
      tokenUrl: (base) => `${base}/v2/oauth/access_token`,
      // Permissions are set on the integration in Vercel's console, not requested per flow.
      scopes: [],
      tokenRequestBody: 'form', // /v2/oauth/access_token takes a form-encoded body
      clientIdEnv: 'VERCEL_CLIENT_ID',
      clientSecretEnv: 'VERCEL_CLIENT_SECRET',
      // The install page is addressed by the integration's slug, not its client id.
      appNameEnv: 'VERCEL_INTEGRATION_SLUG',
    },
  },
  api,
  rateLimit,
  async identify(client, _fields, grant) {
    if (grant.team_id) {
      // A team grant: the integration is the team's, listed under its name, and scoped to it.
      const team = await client.get(`/v2/teams/${encodeURIComponent(grant.team_id)}`, {
        teamId: grant.team_id,
      })
      return {
        externalId: `team:${team.id}`,
        accountName: accountName(team.name, team.slug),
        fields: { teamId: team.id },
      }
    }
    const { user } = await client.get('/v2/user')
    return {
      externalId: `user:${user.id ?? user.uid}`,
      accountName: accountName(user.name, user.username || user.email),
    }
  },
  troubleshooting: { rules: TROUBLESHOOTING_RULES, diagnose },
  describeError,
  tools: [...vercelTools, defineApiCallTool({ id: 'vercel', title: 'Vercel', api, rateLimit })],
  triggers: vercelTriggers,
  webhooks: vercelWebhooks,
}
