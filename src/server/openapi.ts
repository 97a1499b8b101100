import { ERROR_CODES, statusOf } from '../core/errors.ts'
import type { ToolRegistry } from '../core/tools/catalog.ts'
import { agentPaths, agentSchemas, nextCursor, pageParameters, q } from './openapi-agents.ts'
import { peoplePaths, peopleSchemas } from './openapi-people.ts'
import { modelAdminPaths, modelAdminSchemas } from './openapi-model-admin.ts'
import { modelPaths, modelSchemas } from './openapi-models.ts'
import { body, errors, idParam, json, sent, time } from './openapi-parts.ts'

const apiKey = {
  id: { type: 'string' },
  name: { type: 'string' },
  prefix: { type: 'string', description: 'The part of the key shown again to tell keys apart' },
}

const jsonRpc = {
  type: 'object',
  required: ['jsonrpc'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'integer'] },
    method: { type: 'string' },
    params: { type: 'object' },
  },
}
const mcpPost =
  'Tools over the Model Context Protocol (Streamable HTTP, stateless): every tool step as an MCP tool. ' +
  'Only an API key as Authorization: Bearer; a credential in the query string is refused. See docs/mcp.md.'

/** /mcp speaks JSON-RPC, not REST: documented so it is known, with the protocol left to docs/mcp.md. */
const mcpPath = {
  post: {
    summary:
      'MCP: one JSON-RPC message (initialize, tools/list, tools/call…), answered with one JSON response',
    description: mcpPost,
    security: [{ apiKey: [] }],
    requestBody: body(jsonRpc),
    responses: {
      200: json(jsonRpc, 'The JSON-RPC response'),
      202: { description: 'A notification or response was accepted' },
      ...errors(400, 401),
    },
  },
  get: {
    summary:
      'MCP: the server-to-client stream (text/event-stream) that announces notifications/tools/list_changed',
    security: [{ apiKey: [] }],
    responses: {
      200: {
        description: 'An event stream',
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      },
      ...errors(400, 401),
    },
  },
  delete: {
    summary: 'MCP: ending a session; there are none, so always 405',
    security: [{ apiKey: [] }],
    responses: { 405: { description: 'No sessions' } },
  },
}

/** The OpenAPI 3.1 document, generated from the same tool declarations as the catalogue. */
export function openApiDocument(registry: ToolRegistry, serverUrl: string) {
  const tools = registry.list()
  const runBodies = tools.map((t) => ({
    title: t.id,
    type: 'object',
    required: ['integration', 'input'],
    properties: {
      integration: { type: 'string', description: 'Integration id or account name' },
      input: t.inputSchema,
    },
  }))
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchyard',
      version: '0.1.0',
      description: 'Tool steps, integrations, agents, runs and triggers.',
    },
    servers: [{ url: serverUrl }],
    security: [{ apiKey: [] }, { session: [] }],
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: sy_…' },
        session: { type: 'apiKey', in: 'cookie', name: 'sy_session' },
        runToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            'The run token (syr_…) an external agent is delivered with; it may call tool steps, read its run and complete it (docs/agents.md)',
        },
      },
      schemas: {
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'code', 'detail'],
          properties: {
            type: { type: 'string' },
            title: { type: 'string' },
            status: { type: 'integer' },
            code: {
              enum: [...ERROR_CODES],
              description: `One HTTP status per code: ${ERROR_CODES.map((c) => `${c} ${statusOf(c)}`).join(', ')}`,
            },
            detail: { type: 'string' },
            errors: {
              type: 'array',
              items: sent({ field: { type: 'string' }, message: { type: 'string' } }),
            },
            troubleshooting: { type: 'array', items: { type: 'string' } },
            applies: { type: 'array', items: { type: 'integer' } },
            retry_after: { type: 'integer' },
            required_plan: { type: 'string' },
            upstream_status: { type: 'integer' },
            integration_id: {
              type: 'string',
              description: 'reconnect_required: the integration to reconnect',
            },
          },
        },
        Integration: {
          type: 'object',
          required: [
            'id',
            'platform',
            'account_name',
            'external_id',
            'status',
            'connected_with',
            'fields',
            'created_at',
            'updated_at',
          ],
          properties: {
            id: { type: 'string' },
            platform: { type: 'string' },
            account_name: { type: 'string' },
            external_id: { type: 'string' },
            status: { enum: ['active', 'needs_reconnection', 'disconnected'] },
            connected_with: { enum: ['authorization', 'credentials'] },
            fields: { type: 'object', additionalProperties: { type: 'string' } },
            paused_triggers: {
              type: 'integer',
              description: 'Triggers its disconnection paused: POST …/resume after reconnecting',
            },
            created_at: { type: 'string', format: 'date-time' },
            updated_at: { type: 'string', format: 'date-time' },
          },
        },
        Tool: {
          type: 'object',
          required: [
            'id',
            'title',
            'description',
            'platform',
            'kind',
            'effect',
            'legacy',
            'destructive',
            'inputSchema',
            'outputSchema',
            'fieldOptions',
          ],
          properties: {
            id: { type: 'string' },
            title: { type: 'string' },
            description: { type: 'string' },
            platform: { type: 'string' },
            kind: { type: 'string' },
            effect: { enum: ['read', 'write', 'delete'] },
            legacy: { type: 'boolean' },
            destructive: {
              type: 'boolean',
              description:
                "A delete, or a write that cannot simply be taken back (MCP's destructiveHint); a model agent's call to it always waits for a person's approval",
            },
            inputSchema: { type: 'object' },
            outputSchema: { type: 'object' },
            confirm: {
              type: 'string',
              description:
                'Present when a person should confirm before the step runs (every delete, and hard-to-undo writes); the question to ask',
            },
            fieldOptions: {
              type: 'object',
              description:
                "Input fields with options to choose from (GET /v1/tools/{id}/options/{field}), and the fields each one's options depend on",
              additionalProperties: {
                type: 'object',
                required: ['dependsOn'],
                properties: { dependsOn: { type: 'array', items: { type: 'string' } } },
              },
            },
          },
        },
        Summary: {
          type: 'object',
          required: ['text'],
          properties: {
            text: {
              type: 'string',
              description: 'The result in one line, e.g. "Ticket #7: Printer on fire created"',
            },
            url: {
              type: 'string',
              description:
                "The object on the platform, on the integration's own host (sandbox objects link to the sandbox)",
            },
            tone: {
              enum: ['error'],
              description:
                'The platform answered a failure that the step returns as data (an API Call 4xx or 5xx)',
            },
          },
        },
        FieldOptions: {
          type: 'object',
          required: ['options', 'next_cursor'],
          properties: {
            options: {
              type: 'array',
              items: {
                type: 'object',
                required: ['value', 'label'],
                properties: {
                  value: { type: ['string', 'integer'], description: "What the step's field takes" },
                  label: { type: 'string' },
                  description: { type: 'string' },
                },
              },
            },
            next_cursor: {
              type: ['string', 'null'],
              description: 'Pass back as cursor for the next page; null on the last',
            },
          },
        },
        Platform: {
          type: 'object',
          required: [
            'id',
            'title',
            'kind',
            'mode',
            'missing_settings',
            'connect_methods',
            'authorize_in',
            'credential_fields',
            'connection_fields',
          ],
          properties: {
            id: { type: 'string' },
            title: { type: 'string' },
            kind: { type: 'string' },
            mode: {
              enum: ['live', 'sandbox', 'not_configured'],
              description:
                'not_configured: no OAuth client is set and no sandbox is served; connecting answers not_configured',
            },
            missing_settings: {
              type: 'array',
              items: { type: 'string' },
              description: 'Environment variables still to set (not_configured only)',
            },
            sandbox_home: {
              type: ['string', 'null'],
              description:
                "sandbox only: the sandbox's home page, where a person makes changes as another user and adds webhooks; null otherwise",
            },
            connect_methods: { type: 'array', items: { enum: ['authorize', 'credentials'] } },
            authorize_in: { enum: ['popup', 'page'] },
            credential_fields: {
              type: 'array',
              description:
                'The values a person pastes (connect_methods has credentials); secret ones are masked',
              items: sent(
                {
                  name: { type: 'string' },
                  label: { type: 'string' },
                  help: { type: 'string' },
                  secret: { type: 'boolean' },
                },
                ['help', 'secret'],
              ),
            },
            connection_fields: {
              type: 'array',
              items: sent(
                {
                  name: { type: 'string' },
                  label: { type: 'string' },
                  help: { type: 'string' },
                  example: { type: 'string' },
                  json_schema: { type: 'object' },
                },
                ['help', 'example'],
              ),
            },
          },
        },
        User: {
          type: 'object',
          required: ['id', 'email', 'name', 'plan', 'role', 'created_at', 'integrations'],
          properties: {
            id: { type: 'string' },
            email: { type: 'string', format: 'email' },
            name: { type: 'string' },
            plan: { enum: ['free', 'pro', 'enterprise'] },
            role: { enum: ['admin', 'member'], description: 'admin: may manage users' },
            created_at: { type: 'string', format: 'date-time' },
            integrations: { type: 'integer', description: 'Integrations the user holds' },
          },
        },
        ...agentSchemas,
        ...modelSchemas,
        ...modelAdminSchemas,
        ...peopleSchemas,
        ConnectStart: sent({ connect_url: { type: 'string' }, expires_at: time }),
        ApiKey: sent({
          ...apiKey,
          created_at: time,
          last_used_at: { type: ['string', 'null'], format: 'date-time' },
        }),
        CreatedApiKey: sent({
          ...apiKey,
          key: { type: 'string', description: 'The key itself: shown once' },
        }),
      },
    },
    paths: {
      '/v1/retention': {
        get: {
          summary:
            'How long finished runs and events are kept, per plan, and what a step stores (admins only; set by the operator, docs/configuration.md)',
          responses: {
            200: json({
              type: 'object',
              required: [
                'plans',
                'event_days',
                'event_days_minimum',
                'step_store_max_bytes',
                'stored',
                'last_prune',
              ],
              properties: {
                plans: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['plan', 'max_age_days', 'max_runs'],
                    properties: {
                      plan: { enum: ['free', 'pro', 'enterprise'] },
                      max_age_days: { type: 'integer', description: 'finished runs older than this go' },
                      max_runs: {
                        type: 'integer',
                        description: "finished runs past a user's newest this many go",
                      },
                    },
                  },
                },
                event_days: { type: 'integer' },
                event_days_minimum: {
                  type: 'integer',
                  description:
                    'the longest time a platform may deliver an event again; events are never kept less',
                },
                step_store_max_bytes: { type: 'integer' },
                stored: {
                  type: 'object',
                  description: "estimates from the database's statistics",
                  required: ['runs', 'events'],
                  properties: { runs: { type: 'integer' }, events: { type: 'integer' } },
                },
                last_prune: {
                  type: ['object', 'null'],
                  required: ['at', 'runs_deleted', 'events_deleted'],
                  properties: {
                    at: { type: 'string', format: 'date-time' },
                    runs_deleted: { type: 'integer' },
                    events_deleted: { type: 'integer' },
                  },
                },
              },
            }),
            ...errors(401, 403),
          },
        },
      },
      '/v1/users': {
        get: {
          summary: 'List users (admins only)',
          responses: {
            200: json({
              type: 'object',
              required: ['users'],
              properties: { users: { type: 'array', items: { $ref: '#/components/schemas/User' } } },
            }),
            ...errors(401, 403),
          },
        },
        post: {
          summary:
            'Create a user: their first API key and their invitation link, shown once; the link is also mailed when SMTP is configured (admins only)',
          requestBody: body({
            type: 'object',
            required: ['email'],
            additionalProperties: false,
            properties: {
              email: { type: 'string', format: 'email' },
              name: { type: 'string' },
              plan: { enum: ['free', 'pro', 'enterprise'], default: 'free' },
              role: { enum: ['admin', 'member'], default: 'member' },
            },
          }),
          responses: {
            201: json(
              sent({
                user: { $ref: '#/components/schemas/User' },
                api_key: { $ref: '#/components/schemas/CreatedApiKey' },
                invitation: { $ref: '#/components/schemas/PasswordLink' },
              }),
              'Created',
            ),
            ...errors(400, 401, 403, 409),
          },
        },
      },
      '/v1/users/{id}': {
        get: {
          summary: 'Get a user (admins only)',
          parameters: [idParam],
          responses: { 200: json({ $ref: '#/components/schemas/User' }), ...errors(403, 404) },
        },
        patch: {
          summary: "Change a user's plan or role (admins only; the last admin cannot be demoted: 409)",
          parameters: [idParam],
          requestBody: body({
            type: 'object',
            additionalProperties: false,
            minProperties: 1,
            properties: {
              plan: { enum: ['free', 'pro', 'enterprise'] },
              role: { enum: ['admin', 'member'] },
            },
          }),
          responses: { 200: json({ $ref: '#/components/schemas/User' }), ...errors(400, 403, 404, 409) },
        },
        delete: {
          summary:
            'Remove a user: revoke and erase their integrations, delete their API keys and sessions (admins only; not the last admin: 409)',
          parameters: [idParam],
          responses: {
            200: json(
              sent({
                id: { type: 'string' },
                email: { type: 'string' },
                integrations_disconnected: { type: 'integer' },
                revoked_at_platform: { type: 'integer' },
                webhooks_removed_at_platforms: { type: 'integer' },
                webhooks_left_at_platforms: { type: 'integer' },
              }),
              'Removed',
            ),
            ...errors(403, 404, 409),
          },
        },
      },
      '/v1/api-keys': {
        get: {
          summary: 'List API keys',
          responses: {
            200: json(sent({ api_keys: { type: 'array', items: { $ref: '#/components/schemas/ApiKey' } } })),
          },
        },
        post: {
          summary: 'Create an API key (shown once)',
          requestBody: body({
            type: 'object',
            properties: { name: { type: 'string', minLength: 1, maxLength: 100, default: 'default' } },
          }),
          responses: { 201: json({ $ref: '#/components/schemas/CreatedApiKey' }, 'Created'), ...errors(400) },
        },
      },
      '/v1/api-keys/{id}': {
        delete: {
          summary: 'Delete an API key',
          parameters: [idParam],
          responses: { 204: { description: 'Deleted' }, ...errors(404) },
        },
      },
      '/v1/platforms': {
        get: {
          summary:
            'Platforms, how each runs here (live, sandbox or not_configured) and their connection fields',
          responses: {
            200: json({
              type: 'object',
              required: ['platforms'],
              properties: { platforms: { type: 'array', items: { $ref: '#/components/schemas/Platform' } } },
            }),
          },
        },
      },
      '/v1/platforms/{id}/credential-help': {
        get: {
          summary:
            'Where to get a pasted credential, given the values typed so far (for Trello: the token page of a key)',
          parameters: [
            idParam,
            {
              name: 'values',
              in: 'query',
              style: 'form',
              explode: true,
              schema: { type: 'object', additionalProperties: { type: 'string' } },
              description: 'The credential fields typed so far, by name',
            },
          ],
          responses: {
            200: json(sent({ url: { type: ['string', 'null'] } })),
            ...errors(404),
          },
        },
      },
      '/v1/integrations': {
        get: {
          summary: 'Your integrations, oldest first, a page at a time',
          parameters: [
            ...pageParameters("the account name or the platform's id"),
            q('platform', "Only this platform's integrations (a picker for a Trello step lists Trello's)", {
              type: 'string',
              maxLength: 50,
            }),
          ],
          responses: {
            200: json({
              type: 'object',
              required: ['integrations'],
              properties: {
                integrations: { type: 'array', items: { $ref: '#/components/schemas/Integration' } },
                ...nextCursor,
              },
            }),
            ...errors(400),
          },
        },
        post: {
          summary: 'Connect with pasted credentials, checked with the platform at once',
          requestBody: body({
            type: 'object',
            required: ['platform', 'credentials'],
            properties: {
              platform: { type: 'string' },
              fields: { type: 'object' },
              credentials: { type: 'object' },
            },
          }),
          responses: {
            201: json({ $ref: '#/components/schemas/Integration' }, 'Connected'),
            ...errors(400, 402),
          },
        },
      },
      '/v1/integrations/connect': {
        post: {
          summary: 'Start connecting an account',
          requestBody: body({
            type: 'object',
            required: ['platform'],
            properties: { platform: { type: 'string' }, fields: { type: 'object' } },
          }),
          responses: {
            201: json({ $ref: '#/components/schemas/ConnectStart' }, 'Started'),
            ...errors(400, 402),
          },
        },
      },
      '/v1/integrations/{id}': {
        get: {
          summary: 'Get an integration',
          parameters: [idParam],
          responses: { 200: json({ $ref: '#/components/schemas/Integration' }), ...errors(404) },
        },
        delete: {
          summary: 'Delete an integration',
          parameters: [idParam],
          responses: { 204: { description: 'Deleted' }, ...errors(404) },
        },
      },
      '/v1/integrations/{id}/reconnect': {
        post: {
          summary: 'Start a fresh OAuth flow for an integration',
          parameters: [idParam],
          responses: { 201: json({ $ref: '#/components/schemas/ConnectStart' }, 'Started'), ...errors(404) },
        },
      },
      '/v1/integrations/{id}/credentials': {
        put: {
          summary: 'Reconnect with new pasted credentials of the same account',
          parameters: [idParam],
          requestBody: body({
            type: 'object',
            required: ['credentials'],
            properties: { credentials: { type: 'object' } },
          }),
          responses: { 200: json({ $ref: '#/components/schemas/Integration' }), ...errors(400, 404) },
        },
      },
      '/v1/integrations/{id}/usage': {
        get: {
          summary:
            'What stops if it is disconnected or deleted: its active triggers, the agent steps and model tools bound to it, the external agents that declare it',
          parameters: [idParam],
          responses: {
            200: json(
              sent({
                active_triggers: { type: 'integer' },
                agent_steps: {
                  type: 'integer',
                  description: "Steps and model agents' tools of the agents' current versions that name it",
                },
                external_agents: {
                  type: 'integer',
                  description: 'External agents whose current version declares it in external.integrations',
                },
                paused_triggers: { type: 'integer' },
                summary: { type: ['string', 'null'] },
              }),
            ),
            ...errors(404),
          },
        },
      },
      '/v1/integrations/{id}/resume': {
        post: {
          summary: 'After reconnecting: activate again the triggers its disconnection paused',
          parameters: [idParam],
          responses: {
            200: json(
              sent({
                resumed: { type: 'array', items: { type: 'string' } },
                failed: {
                  type: 'array',
                  items: sent({
                    id: { type: 'string' },
                    code: { type: 'string' },
                    message: { type: 'string' },
                  }),
                },
              }),
            ),
            ...errors(404, 409),
          },
        },
      },
      '/v1/integrations/{id}/disconnect': {
        post: {
          summary:
            'Disconnect: its active triggers are paused (integration_disconnected) and their webhooks removed, then the credentials are revoked and erased',
          parameters: [idParam],
          responses: { 200: json({ $ref: '#/components/schemas/Integration' }), ...errors(404) },
        },
      },
      '/v1/tools': {
        get: {
          summary: 'List or search tool steps',
          parameters: [{ name: 'q', in: 'query', schema: { type: 'string' } }],
          responses: {
            200: json(sent({ tools: { type: 'array', items: { $ref: '#/components/schemas/Tool' } } })),
          },
        },
      },
      '/v1/tools/{id}': {
        get: {
          summary: 'Describe a tool step',
          parameters: [idParam],
          responses: { 200: json({ $ref: '#/components/schemas/Tool' }), ...errors(404) },
        },
      },
      '/v1/tools/{id}/options/{field}': {
        get: {
          summary: "List the options of a tool step's id field, from the integration's account",
          description:
            "Tenant-scoped like a run. Every other query parameter is the value of a field the options depend on (see the tool's fieldOptions), for example list_id for the labels of Trello Create Card.",
          parameters: [
            idParam,
            { name: 'field', in: 'path', required: true, schema: { type: 'string' } },
            {
              name: 'integration',
              in: 'query',
              required: true,
              schema: { type: 'string' },
              description: 'Integration id or account name',
            },
            {
              name: 'q',
              in: 'query',
              schema: { type: 'string', maxLength: 200 },
              description: 'Search text',
            },
            {
              name: 'cursor',
              in: 'query',
              schema: { type: 'string' },
              description: 'A next_cursor from the previous page',
            },
          ],
          responses: {
            200: json({ $ref: '#/components/schemas/FieldOptions' }),
            ...errors(400, 404, 409, 429, 502),
          },
        },
      },
      '/v1/tools/{id}/run': {
        post: {
          summary: 'Run a tool step',
          parameters: [idParam],
          requestBody: body({ oneOf: runBodies }),
          responses: {
            200: json({
              type: 'object',
              required: ['output', 'summary'],
              properties: {
                output: {},
                summary: { oneOf: [{ $ref: '#/components/schemas/Summary' }, { type: 'null' }] },
              },
            }),
            ...errors(400, 402, 404, 409, 429, 502),
          },
        },
      },
      ...agentPaths,
      ...peoplePaths,
      ...modelPaths,
      ...modelAdminPaths,
      '/mcp': mcpPath,
    },
  }
}
