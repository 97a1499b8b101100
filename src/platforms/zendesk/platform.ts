import { accountName } from '../../core/platforms/account-name.ts'
import { defineApiCallTool } from '../../core/proxy/api-call-tool.ts'
import type { RateLimitFacts } from '../../core/limits/rate-limit-headers.ts'
import type { ApiFacts, PlatformDefinition } from '../../core/platforms/types.ts'
import { describeError, diagnose, TROUBLESHOOTING_RULES } from './errors.ts'
import { Subdomain } from './subdomain.ts'
import { createTicket } from './tools/create-ticket.ts'
import { deleteTicket } from './tools/delete-ticket.ts'
import { getTicketInfo } from './tools/get-ticket.ts'
import { listTickets } from './tools/list-tickets.ts'
import { searchTickets } from './tools/search.ts'
import { updateTicket } from './tools/update-ticket.ts'
import { zendeskTriggers } from './triggers/index.ts'
import { zendeskWebhooks } from './webhooks.ts'

const api: ApiFacts = {
  baseUrl: (fields: Record<string, string>) => `https://${fields.subdomain}.zendesk.com`,
  pathPrefix: '/api/v2/',
  pathHelp: { prefix: '/api/v2/', example: '/api/v2/tickets/7.json' },
  mapExample: { name: 'ticket_id', path: 'body.ticket.id' },
  apiCallMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
  usefulHeaders: [
    'x-rate-limit',
    'x-rate-limit-remaining',
    'zendesk-ratelimit-tickets-index',
    'x-zendesk-api-version',
  ],
}

const rateLimit: RateLimitFacts = {
  limitHeader: 'x-rate-limit',
  remainingHeader: 'x-rate-limit-remaining',
  resetHeader: 'ratelimit-reset',
  resetUnit: 'delta-seconds',
  defaultRetryAfterSeconds: 60, // limits are per minute
}

export const zendesk: PlatformDefinition = {
  id: 'zendesk',
  title: 'Zendesk',
  kind: 'ticketing',
  connectionFields: [
    {
      name: 'subdomain',
      label: 'Account subdomain',
      help: 'The part of your Zendesk address before .zendesk.com: for https://acme.zendesk.com enter acme.',
      example: 'acme',
      schema: Subdomain,
    },
  ],
  auth: {
    interactive: {
      kind: 'oauth2',
      authorizeUrl: (base) => `${base}/oauth/authorizations/new`,
      tokenUrl: (base) => `${base}/oauth/tokens`,
      scopes: ['read', 'write'],
      tokenRequestBody: 'json', // the vendor OAS documents a JSON body for /oauth/tokens
      // Zendesk is moving to short-lived tokens with refresh tokens (docs/platforms/zendesk.md, "Facts"); ask for them,
      // one day long, rather than for a token that never expires.
      extraTokenParams: { expires_in: 86_400 },
      clientIdEnv: 'ZENDESK_CLIENT_ID',
      clientSecretEnv: 'ZENDESK_CLIENT_SECRET',
    },
  },
  api,
  rateLimit,
  async identify(client, fields) {
    const { user } = await client.get('/api/v2/users/me.json')
    return {
      // User ids are unique within an account, not across accounts.
      externalId: `${fields.subdomain}:${user.id}`,
      accountName: accountName(user.name || user.email, fields.subdomain),
      unusable: user.role === 'end-user' ? { stage: 'identify', role: 'end-user', status: 403 } : undefined,
    }
  },
  async revoke(client) {
    await client.delete('/api/v2/oauth/tokens/current.json')
  },
  // users/me answers anyone, signed in or not ("Allowed For: Anonymous users"), on every help desk;
  // an address with no help desk answers 404 "No help desk at {subdomain}.zendesk.com".
  accountProbe: {
    path: '/api/v2/users/me.json',
    missing: (fields) => ({
      field: 'fields.subdomain',
      message: `no Zendesk help desk at ${fields.subdomain}.zendesk.com: check the subdomain`,
    }),
  },
  troubleshooting: { rules: TROUBLESHOOTING_RULES, diagnose },
  describeError,
  tools: [
    createTicket,
    getTicketInfo,
    listTickets,
    searchTickets,
    updateTicket,
    deleteTicket,
    defineApiCallTool({ id: 'zendesk', title: 'Zendesk', api, rateLimit }),
  ],
  triggers: zendeskTriggers,
  webhooks: zendeskWebhooks,
}
