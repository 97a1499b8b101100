import { modelAgentInputProperties } from './openapi-models.ts'
import { body, errors, idParam, json, ref, sent, time } from './openapi-parts.ts'

// The agents, runs, triggers and subscriptions part of the OpenAPI document (docs/agents.md,
// docs/triggers.md); the shapes follow src/core/agents/ and src/core/triggers/.

const nullable = (schema: Record<string, unknown>) => ({ oneOf: [schema, { type: 'null' }] })
const listOf = (key: string, item: string, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  required: [key, ...Object.keys(extra)],
  properties: { [key]: { type: 'array', items: ref(item) }, ...extra },
})
type ObjectSchema = { type: string; required?: readonly string[]; properties: Record<string, object> }
/** An answer's object: the defaults of the body it was made from are filled in, so those members are always there. */
const filled = <S extends ObjectSchema>(schema: S) => ({
  ...schema,
  required: [
    ...(schema.required ?? []),
    ...Object.keys(schema.properties).filter(
      (k) => 'default' in schema.properties[k]! && !(schema.required ?? []).includes(k),
    ),
  ],
})
const deleted = { 204: { description: 'Deleted' } }
/** Deleted, with webhooks the user added at a platform by hand and must remove there (their addresses answer 410). */
const manualCleanup = {
  description: 'Deleted; remove these webhooks at the platform yourself',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: {
          manual_cleanup: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                platform: { type: 'string' },
                address: { type: 'string' },
                message: { type: 'string' },
              },
            },
          },
        },
      },
    },
  },
}

const identifier = { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' }
const template = {
  description:
    'A value; strings may hold JSONata templates such as "{{ inputs.subject }}" or "{{ steps.card.output.id }}"',
}
const runError = {
  type: 'object',
  required: ['code', 'message'],
  properties: { code: { type: 'string' }, message: { type: 'string' }, step: { type: 'string' } },
}
const fieldErrors = {
  type: 'array',
  items: {
    type: 'object',
    required: ['field', 'message'],
    properties: { field: { type: 'string' }, message: { type: 'string' } },
  },
}

const agentInputProperties = {
  name: { type: 'string', minLength: 1, maxLength: 100, description: 'Unique among your agents' },
  description: { type: 'string', maxLength: 2000, default: '' },
  inputs: {
    type: 'array',
    maxItems: 50,
    default: [],
    items: {
      type: 'object',
      required: ['name', 'type'],
      properties: {
        name: identifier,
        type: { enum: ['string', 'number', 'boolean', 'object', 'array'] },
        required: { type: 'boolean', default: false },
        description: { type: 'string', maxLength: 1000, default: '' },
      },
    },
  },
  kind: {
    enum: ['steps', 'external', 'model'],
    description:
      'steps: Switchyard runs tool steps; external: Switchyard delivers each run to your service; model: a language model works through tool steps (docs/model-agents.md)',
  },
  steps: {
    type: 'array',
    maxItems: 50,
    default: [],
    items: {
      type: 'object',
      required: ['key', 'tool', 'integration'],
      properties: {
        key: identifier,
        tool: { type: 'string', description: 'A tool step id, e.g. trello.create_card' },
        integration: { type: 'string', description: 'An integration id or account name; stored as the id' },
        input: { type: 'object', additionalProperties: template, default: {} },
        condition: {
          type: 'string',
          maxLength: 2000,
          description: 'A JSONata expression; the step is skipped when it is false',
        },
        on_failure: { enum: ['stop', 'continue'], default: 'stop' },
      },
    },
  },
  output: {
    type: 'object',
    additionalProperties: template,
    default: {},
    description:
      "Steps agents: the run's result as templates (without it, the last successful step's output). Model agents: a JSON Schema the final answer must satisfy (without it, free text)",
  },
  external: {
    type: 'object',
    required: ['url'],
    properties: {
      url: { type: 'string', format: 'uri', description: 'http(s) address runs are delivered to' },
      integrations: {
        type: 'array',
        maxItems: 50,
        default: [],
        items: { type: 'string', minLength: 1 },
        description:
          'Integration ids or account names the run token may act on; a tool call on any other answers 403',
      },
    },
  },
  ...modelAgentInputProperties,
}

export const agentSchemas = {
  AgentInput: { type: 'object', required: ['name', 'kind'], properties: agentInputProperties },
  Agent: {
    type: 'object',
    required: [
      'id',
      'version',
      'name',
      'description',
      'kind',
      'inputs',
      'steps',
      'output',
      'created_at',
      'updated_at',
    ],
    properties: {
      ...agentInputProperties,
      inputs: { type: 'array', items: filled(agentInputProperties.inputs.items) },
      steps: {
        type: 'array',
        items: {
          allOf: [
            filled(agentInputProperties.steps.items),
            sent({ tool_title: { type: 'string' }, integration_name: { type: ['string', 'null'] } }),
          ],
        },
      },
      external: filled(agentInputProperties.external),
      id: { type: 'string' },
      version: { type: 'integer', minimum: 1 },
      created_at: time,
      updated_at: time,
      signing_secret: {
        type: 'string',
        description:
          'External agents only, in the answer that created the agent (or made it external) and nowhere else: whsec_…',
      },
    },
  },
  Attempt: {
    type: 'object',
    required: ['at', 'outcome'],
    properties: {
      at: time,
      outcome: { enum: ['running', 'succeeded', 'failed'] },
      error: { type: 'string' },
      status: { type: 'integer', description: "The platform's HTTP status" },
      duration_ms: { type: 'integer' },
      retry_in_ms: {
        type: 'integer',
        description: 'Set on a failed attempt that is tried again after this wait',
      },
    },
  },
  TimelineEntry: {
    type: 'object',
    required: ['seq', 'key', 'kind', 'status', 'attempts', 'started_at'],
    properties: {
      seq: { type: 'integer' },
      key: { type: 'string' },
      kind: { enum: ['step', 'tool_call', 'delivery', 'model_call'] },
      tool_id: { type: ['string', 'null'] },
      tool_title: { type: ['string', 'null'] },
      integration_id: { type: ['string', 'null'] },
      integration_name: { type: ['string', 'null'] },
      status: { enum: ['running', 'succeeded', 'failed', 'skipped'] },
      input: {},
      output: {},
      cut: {
        type: 'array',
        items: { enum: ['input', 'output'] },
        description:
          'Which of input and output are stored cut (past SWITCHYARD_STEP_STORE_MAX_BYTES): long strings keep their start followed by "… [cut by Switchyard: N characters, …]", and a value still too large becomes {"switchyard_cut": "…", "start": "<the start of its JSON>"}',
      },
      summary: nullable(ref('Summary')),
      error: nullable(runError),
      attempts: { type: 'array', items: ref('Attempt') },
      started_at: time,
      finished_at: nullable(time),
      duration_ms: { type: ['integer', 'null'] },
      approval: ref('ApprovalNote'),
    },
  },
  Run: {
    type: 'object',
    required: [
      'id',
      'agent_id',
      'agent_name',
      'agent_version',
      'status',
      'started_by',
      'subscription_id',
      'trigger_id',
      'test',
      'rerun_of',
      'inputs',
      'event',
      'result',
      'error',
      'created_at',
      'started_at',
      'finished_at',
      'duration_ms',
    ],
    properties: {
      id: { type: 'string' },
      agent_id: { type: 'string' },
      agent_name: { type: 'string' },
      agent_version: { type: 'integer' },
      status: {
        enum: [
          'queued',
          'running',
          'waiting_for_approval',
          'succeeded',
          'failed',
          'cancelled',
          'budget_exhausted',
          'escalated',
        ],
      },
      started_by: { enum: ['trigger', 'person', 'api', 'rerun'] },
      subscription_id: { type: ['string', 'null'] },
      trigger_id: { type: ['string', 'null'] },
      test: { type: 'boolean' },
      rerun_of: { type: ['string', 'null'] },
      inputs: { type: 'object' },
      event: { description: "The trigger's event, or null" },
      result: {},
      error: nullable(runError),
      created_at: time,
      started_at: nullable(time),
      finished_at: nullable(time),
      duration_ms: { type: ['integer', 'null'] },
      timeline: {
        type: 'array',
        items: ref('TimelineEntry'),
        description: 'In GET /v1/runs/{id} and the answers about one run, not in lists',
      },
    },
  },
  Trigger: {
    type: 'object',
    required: [
      'id',
      'title',
      'description',
      'platform',
      'kind',
      'mode',
      'configSchema',
      'eventSchema',
      'sample',
      'fieldOptions',
      'requiredPlan',
      'availableOnYourPlan',
      'manualWebhook',
    ],
    properties: {
      id: { type: 'string' },
      title: { type: 'string' },
      description: { type: 'string' },
      platform: { type: 'string' },
      kind: { type: 'string' },
      mode: { enum: ['instant', 'polled'] },
      configSchema: { type: 'object', description: "JSON Schema of a subscription's config" },
      eventSchema: { type: 'object', description: 'JSON Schema of the normalised event a mapping reads' },
      sample: { type: 'object' },
      fieldOptions: {
        type: 'object',
        additionalProperties: {
          type: 'object',
          required: ['dependsOn'],
          properties: { dependsOn: { type: 'array', items: { type: 'string' } } },
        },
      },
      requiredPlan: { type: ['string', 'null'] },
      availableOnYourPlan: {
        type: 'boolean',
        description:
          "Whether the caller's plan allows this trigger (false: requiredPlan says which plan does)",
      },
      manualWebhook: {
        oneOf: [
          sent({
            events: {
              type: 'array',
              items: { type: 'string' },
              description: 'The event names to tick at the platform',
            },
            sendSample: { type: 'boolean', description: 'Whether POST …/send-sample can send its sample' },
          }),
          { type: 'null' },
        ],
        description: 'Platforms whose webhook the person sets up: what to set up there; null for the others',
      },
    },
  },
  Subscription: {
    type: 'object',
    // Every member is always sent (src/core/triggers/subscriptions.ts, SubscriptionView).
    required: [
      'id',
      'agent_id',
      'trigger_id',
      'trigger_title',
      'platform',
      'mode',
      'integration_id',
      'integration_name',
      'config',
      'mapping',
      'status',
      'paused_reason',
      'health',
      'start_on_own_changes',
      'webhook_address',
      'webhook_secret_set',
      'last_event_at',
      'last_error',
      'last_error_at',
      'created_at',
      'updated_at',
    ],
    properties: {
      id: { type: 'string' },
      agent_id: { type: 'string' },
      agent_name: { type: ['string', 'null'], description: "The agent's current name" },
      trigger_id: { type: 'string' },
      trigger_title: { type: 'string' },
      platform: { type: 'string' },
      mode: { enum: ['instant', 'polled'] },
      integration_id: { type: 'string' },
      integration_name: { type: ['string', 'null'] },
      config: { type: 'object' },
      mapping: { type: 'object', additionalProperties: { type: 'string' } },
      status: { enum: ['inactive', 'active', 'paused'] },
      paused_reason: {
        type: ['string', 'null'],
        description: 'Why the service paused it: integration_disconnected or plan_required',
      },
      health: {
        type: 'object',
        description: 'One verdict with its reasons, the weightiest first (docs/triggers.md, "Health")',
        required: ['verdict', 'reasons'],
        properties: {
          verdict: { enum: ['healthy', 'warning', 'failing', 'paused'] },
          reasons: {
            type: 'array',
            items: sent({
              code: { type: 'string' },
              severity: { enum: ['warning', 'failing', 'paused'] },
              message: { type: 'string' },
            }),
          },
        },
      },
      start_on_own_changes: { type: 'boolean' },
      webhook_address: {
        type: ['string', 'null'],
        description: 'Platforms whose webhooks the user sets up: the address to give the platform',
      },
      webhook_secret_set: { type: ['boolean', 'null'] },
      last_event_at: nullable(time),
      last_error: { type: ['string', 'null'] },
      last_error_at: nullable(time),
      created_at: time,
      updated_at: time,
    },
  },
  SubscriptionHealth: {
    type: 'object',
    // Every member is always sent (src/core/triggers/subscriptions.ts, health).
    required: [
      'status',
      'paused_reason',
      'verdict',
      'reasons',
      'integration',
      'webhooks',
      'polled',
      'next_poll_at',
      'last_event_at',
      'last_error',
      'last_error_at',
      'deliveries',
    ],
    properties: {
      status: { enum: ['inactive', 'active', 'paused'] },
      paused_reason: { type: ['string', 'null'] },
      verdict: { enum: ['healthy', 'warning', 'failing', 'paused'] },
      reasons: {
        type: 'array',
        items: sent({
          code: { type: 'string' },
          severity: { enum: ['warning', 'failing', 'paused'] },
          message: { type: 'string' },
        }),
      },
      integration: sent({
        id: { type: 'string' },
        name: { type: ['string', 'null'] },
        status: { type: 'string' },
        connected: { type: 'boolean' },
      }),
      webhooks: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'model_key', 'address', 'remote_id', 'managed', 'status', 'present', 'last_error'],
          properties: {
            model_key: { type: 'string' },
            remote_id: { type: ['string', 'null'] },
            managed: { type: 'boolean' },
            status: { enum: ['pending', 'active', 'removing', 'remove_failed'] },
            present: {
              type: ['boolean', 'null'],
              description: 'Asked of the platform now; null when it could not be asked',
            },
            last_error: { type: ['string', 'null'] },
            id: { type: 'string', description: 'For GET /v1/webhooks/{id}/events' },
            address: {
              type: 'string',
              description: 'The intake address the platform delivers to (every platform)',
            },
            secret_set: { type: 'boolean' },
          },
        },
      },
      polled: { type: 'boolean' },
      next_poll_at: nullable(time),
      last_event_at: nullable(time),
      last_error: { type: ['string', 'null'] },
      last_error_at: nullable(time),
      deliveries: {
        type: 'object',
        description: 'What the recent deliveries and polls (GET /v1/subscriptions/{id}/events) say',
        required: ['recent', 'counts', 'refused', 'skipped', 'last_poll_at'],
        properties: {
          recent: { type: 'integer', description: 'How many recent deliveries the counts cover' },
          counts: {
            type: 'object',
            additionalProperties: { type: 'integer' },
            description: 'Per outcome',
          },
          refused: nullable(
            sent({
              count: { type: 'integer' },
              last_at: time,
              reason: { type: 'string', description: 'Why, and what to do' },
            }),
          ),
          skipped: nullable(
            sent({
              count: { type: 'integer' },
              last_at: time,
              reason: { type: 'string' },
              option: { const: 'start_on_own_changes' },
            }),
          ),
          last_poll_at: nullable(time),
        },
      },
    },
  },
  TriggerEventOutcome: {
    enum: ['accepted', 'duplicate', 'unmatched', 'skipped', 'refused', 'failed', 'polled'],
    description:
      'accepted: stored and its run started; duplicate: received before, nothing started; unmatched: the trigger does not fire for it under its configuration; skipped: the loop guard left a change made by the integration itself; refused: not accepted (signature, secret, shape); failed: not stored because of an error here, the platform sends it again; polled: a poll that found nothing new',
  },
  SubscriptionEvent: {
    type: 'object',
    required: ['id', 'received_at', 'via', 'outcome'],
    properties: {
      id: { type: 'string' },
      received_at: time,
      via: { enum: ['webhook', 'poll'] },
      webhook_id: { type: ['string', 'null'] },
      outcome: ref('TriggerEventOutcome'),
      reason: { type: ['string', 'null'] },
      event_type: { type: ['string', 'null'] },
      event_id: { type: ['string', 'null'], description: "The platform's id of the event" },
      run_id: { type: ['string', 'null'] },
    },
  },
  WebhookEvent: {
    type: 'object',
    required: ['id', 'received_at', 'outcome', 'subscriptions'],
    properties: {
      id: { type: 'string' },
      received_at: time,
      outcome: ref('TriggerEventOutcome'),
      reason: { type: ['string', 'null'] },
      event_type: { type: ['string', 'null'] },
      event_id: { type: ['string', 'null'] },
      subscriptions: {
        type: 'array',
        items: {
          type: 'object',
          required: ['subscription_id', 'outcome'],
          properties: {
            subscription_id: { type: 'string' },
            outcome: ref('TriggerEventOutcome'),
            reason: { type: 'string' },
            run_id: { type: 'string' },
          },
        },
      },
    },
  },
}

const subscriptionBody = {
  type: 'object',
  required: ['trigger', 'integration'],
  properties: {
    trigger: { type: 'string', description: 'A trigger id, e.g. trello.new_card' },
    integration: { type: 'string', description: 'An integration id or account name' },
    config: { type: 'object', default: {}, description: "Checked against the trigger's configSchema" },
    mapping: {
      type: 'object',
      additionalProperties: { type: 'string' },
      default: {},
      description: 'Agent input → template over the event, e.g. {"subject": "{{ card.name }}"}',
    },
    start_on_own_changes: {
      type: 'boolean',
      default: false,
      description: "Start on changes the integration's own account made (off: no loops)",
    },
    webhook_secret: {
      type: 'string',
      maxLength: 500,
      description: 'Platforms whose webhooks the user sets up: the secret the platform showed',
    },
  },
}
const mappedEvent = { event: { type: 'object' }, inputs: { type: 'object' }, errors: fieldErrors }
export const q = (
  name: string,
  description: string,
  schema: Record<string, unknown> = { type: 'string' },
) => ({
  name,
  in: 'query',
  schema,
  description,
})

/** The parameters every paged list takes (docs/api.md, "Lists are paged"), as runs do. */
export const pageParameters = (searched: string) => [
  q('limit', 'Page size', { type: 'integer', minimum: 1, maximum: 200, default: 50 }),
  q('cursor', "A next_cursor from the previous page of the same list (another list's or user's is refused)", {
    type: 'string',
    maxLength: 400,
  }),
  q('q', `Search: every word must be found, ignoring case, in ${searched}`, {
    type: 'string',
    maxLength: 200,
  }),
]
export const nextCursor = { next_cursor: { type: ['string', 'null'] } }

export const agentPaths = {
  '/v1/agents': {
    get: {
      summary: 'Your agents, newest first, a page at a time',
      parameters: [
        ...pageParameters("the agent's name or description"),
        q(
          'name',
          'Only the agents of exactly this name, ignoring case (names are unique per user; two may differ in case only). Read by an index, however many agents there are',
          { type: 'string', minLength: 1, maxLength: 100 },
        ),
      ],
      responses: { 200: json(listOf('agents', 'Agent', nextCursor)), ...errors(400, 401) },
    },
    post: {
      summary: 'Create an agent (version 1)',
      requestBody: body(ref('AgentInput')),
      responses: { 201: json(ref('Agent'), 'Created'), ...errors(400, 401) },
    },
  },
  '/v1/agents/{id}': {
    get: {
      summary: 'An agent at its current version, or at ?version=N',
      parameters: [idParam, q('version', 'A version number', { type: 'integer', minimum: 1 })],
      responses: { 200: json(ref('Agent')), ...errors(400, 404) },
    },
    put: {
      summary: 'Save the agent: a new version; runs already accepted keep theirs',
      parameters: [idParam],
      requestBody: body(ref('AgentInput')),
      responses: { 200: json(ref('Agent')), ...errors(400, 404) },
    },
    delete: {
      summary: 'Delete the agent; its subscriptions are deactivated and deleted first',
      parameters: [idParam],
      responses: { ...deleted, 200: manualCleanup, ...errors(404) },
    },
  },
  '/v1/agents/{id}/versions': {
    get: {
      summary: "The agent's versions, newest first",
      parameters: [idParam],
      responses: {
        200: json({
          type: 'object',
          required: ['versions'],
          properties: {
            versions: {
              type: 'array',
              items: sent({ version: { type: 'integer' }, created_at: time }),
            },
          },
        }),
        ...errors(404),
      },
    },
  },
  '/v1/agents/{id}/signing-secret': {
    post: {
      summary: 'A new signing secret for an external agent; the old one stops working at once',
      parameters: [idParam],
      responses: {
        200: json(sent({ signing_secret: { type: 'string' } })),
        ...errors(404),
      },
    },
  },
  '/v1/agents/{id}/runs': {
    post: {
      summary: "Start a run of the agent's current version",
      description: "429 when the owner's plan allows no more runs waiting to start (the queue cap).",
      parameters: [idParam],
      requestBody: body({ type: 'object', properties: { inputs: { type: 'object', default: {} } } }, false),
      responses: { 201: json(ref('Run'), 'Queued'), ...errors(400, 404, 429) },
    },
  },
  '/v1/agents/{id}/subscriptions': {
    get: {
      summary: "The agent's subscriptions (its triggers), oldest first, a page at a time",
      parameters: [
        idParam,
        ...pageParameters("the trigger's title or id, the agent's name or the integration's account name"),
      ],
      responses: {
        200: json(listOf('subscriptions', 'Subscription', nextCursor)),
        ...errors(400, 404),
      },
    },
    post: {
      summary: 'Attach a trigger to the agent; inactive until activated',
      parameters: [idParam],
      requestBody: body(subscriptionBody),
      responses: { 201: json(ref('Subscription'), 'Created'), ...errors(400, 402, 404) },
    },
  },
  '/v1/runs': {
    get: {
      summary: 'Runs, newest first, a page at a time',
      parameters: [
        q('agent_id', "Only this agent's runs"),
        q('subscription_id', 'Only runs this subscription started'),
        q('trigger_id', 'Only runs a subscription of this trigger started'),
        q('status', 'Only runs in this status', {
          enum: [
            'queued',
            'running',
            'waiting_for_approval',
            'succeeded',
            'failed',
            'cancelled',
            'budget_exhausted',
            'escalated',
          ],
        }),
        q('since', 'Created at or after (ISO 8601)', time),
        q('until', 'Created before (ISO 8601)', time),
        q('limit', 'Page size', { type: 'integer', minimum: 1, maximum: 200, default: 50 }),
        q('cursor', 'A next_cursor from the previous page'),
      ],
      responses: {
        200: json(listOf('runs', 'Run', { next_cursor: { type: ['string', 'null'] } })),
        ...errors(400),
      },
    },
  },
  '/v1/runs/{id}': {
    get: {
      summary: 'A run with its timeline; a run token reads its own run only',
      parameters: [idParam],
      responses: { 200: json(ref('Run')), ...errors(404) },
    },
  },
  '/v1/runs/{id}/cancel': {
    post: {
      summary: 'Cancel a queued or running run (a running one stops before its next step)',
      parameters: [idParam],
      responses: { 200: json(ref('Run')), ...errors(404, 409) },
    },
  },
  '/v1/runs/{id}/rerun': {
    post: {
      summary: "A new run of the agent's current version with the same inputs and event",
      parameters: [idParam],
      responses: { 201: json(ref('Run'), 'Queued'), ...errors(400, 404, 429) },
    },
  },
  '/v1/runs/{id}/complete': {
    post: {
      summary: 'An external agent reports its run finished, with the run token as Bearer',
      security: [{ runToken: [] }],
      parameters: [idParam],
      requestBody: body({
        type: 'object',
        required: ['status'],
        additionalProperties: false,
        properties: {
          status: { enum: ['succeeded', 'failed'] },
          result: {},
          error: {
            type: 'object',
            additionalProperties: false,
            properties: { message: { type: 'string', maxLength: 4000 } },
          },
        },
      }),
      responses: { 200: json(ref('Run')), ...errors(400, 401, 404, 409) },
    },
  },
  '/v1/triggers': {
    get: {
      summary: 'List or search triggers',
      parameters: [q('q', 'Search words')],
      responses: { 200: json(listOf('triggers', 'Trigger')) },
    },
  },
  '/v1/triggers/{id}': {
    get: {
      summary: 'Describe a trigger',
      parameters: [idParam],
      responses: { 200: json(ref('Trigger')), ...errors(404) },
    },
  },
  '/v1/triggers/{id}/options/{field}': {
    get: {
      summary:
        "The options of a trigger configuration's id field, from the integration's account (as for tool steps)",
      parameters: [
        idParam,
        { name: 'field', in: 'path', required: true, schema: { type: 'string' } },
        { ...q('integration', 'Integration id or account name'), required: true },
        q('q', 'Search text'),
        q('cursor', 'A next_cursor from the previous page'),
      ],
      responses: { 200: json(ref('FieldOptions')), ...errors(400, 404, 409, 429, 502) },
    },
  },
  '/v1/subscriptions': {
    get: {
      summary: 'Your subscriptions, oldest first, a page at a time',
      parameters: [
        q('agent_id', "Only this agent's"),
        ...pageParameters("the trigger's title or id, the agent's name or the integration's account name"),
      ],
      responses: {
        200: json(
          listOf('subscriptions', 'Subscription', {
            ...nextCursor,
            plan_resumable: {
              type: 'array',
              items: { type: 'string' },
              description:
                'Triggers a lowered plan paused (plan_required) that the plan includes again: POST /v1/subscriptions/resume',
            },
          }),
        ),
        ...errors(400),
      },
    },
  },
  '/v1/subscriptions/resume': {
    post: {
      summary: 'After a plan upgrade: activate again the triggers a lowered plan paused',
      responses: {
        200: json({
          type: 'object',
          properties: {
            resumed: { type: 'array', items: { type: 'string' } },
            failed: {
              type: 'array',
              items: {
                type: 'object',
                properties: { id: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } },
              },
            },
          },
        }),
      },
    },
  },
  '/v1/subscriptions/{id}': {
    get: {
      summary: 'A subscription',
      parameters: [idParam],
      responses: { 200: json(ref('Subscription')), ...errors(404) },
    },
    patch: {
      summary: 'Change a subscription; an active one whose integration or config changes is set up again',
      parameters: [idParam],
      requestBody: body({
        type: 'object',
        properties: {
          integration: { type: 'string' },
          config: { type: 'object' },
          mapping: subscriptionBody.properties.mapping,
          start_on_own_changes: { type: 'boolean' },
          webhook_secret: { type: ['string', 'null'] },
        },
      }),
      responses: { 200: json(ref('Subscription')), ...errors(400, 404) },
    },
    delete: {
      summary: 'Deactivate and delete a subscription',
      parameters: [idParam],
      responses: { ...deleted, 200: manualCleanup, ...errors(404) },
    },
  },
  '/v1/subscriptions/{id}/activate': {
    post: {
      summary: "Start receiving events: creates or shares the platform's webhook, or starts polling",
      parameters: [idParam],
      responses: { 200: json(ref('Subscription')), ...errors(402, 404, 409, 502) },
    },
  },
  '/v1/subscriptions/{id}/deactivate': {
    post: {
      summary: "Stop receiving events; the platform's webhook is removed when nothing else uses it",
      parameters: [idParam],
      responses: { 200: json(ref('Subscription')), ...errors(404) },
    },
  },
  '/v1/subscriptions/{id}/preview': {
    post: {
      summary:
        "Map an event (given, else the trigger's sample) with a mapping (given, else the stored one); nothing is started",
      parameters: [idParam],
      requestBody: body(
        {
          type: 'object',
          properties: { mapping: subscriptionBody.properties.mapping, event: { type: 'object' } },
        },
        false,
      ),
      responses: { 200: json(sent(mappedEvent)), ...errors(400, 404) },
    },
  },
  '/v1/subscriptions/{id}/test': {
    post: {
      summary: 'Map a recent real event (else the sample); with start_run, start one run marked test',
      parameters: [idParam],
      requestBody: body(
        { type: 'object', properties: { start_run: { type: 'boolean', default: false } } },
        false,
      ),
      responses: {
        200: json(
          sent({ source: { enum: ['recent', 'sample'] }, ...mappedEvent, run: nullable(ref('Run')) }),
        ),
        ...errors(400, 402, 404, 409, 502),
      },
    },
  },
  '/v1/subscriptions/{id}/send-sample': {
    post: {
      summary:
        "For webhooks a person sets up (Vercel): sign the trigger's sample with the saved secret and post it to the subscription's own address, through the real intake",
      parameters: [idParam],
      responses: {
        200: json({
          type: 'object',
          required: ['status', 'signed_by', 'message', 'answer', 'event_ids', 'runs'],
          properties: {
            status: { type: 'integer', description: 'What the intake answered' },
            signed_by: {
              const: 'switchyard',
              description:
                "The sample is signed by Switchyard with the saved secret, not by the platform: it shows this address, secret and mapping work, not that the platform's own webhook is set up",
            },
            message: { type: 'string', description: 'What the answer shows and what it does not' },
            answer: {},
            event_ids: { type: 'array', items: { type: 'string' } },
            runs: {
              type: 'array',
              items: sent({
                id: { type: 'string' },
                status: { type: 'string' },
                inputs: { type: 'object' },
                event: {},
                error: nullable(runError),
              }),
            },
          },
        }),
        ...errors(404, 409, 502),
      },
    },
  },
  '/v1/subscriptions/{id}/health': {
    get: {
      summary:
        'Why a trigger does or does not fire: integration, webhooks (asked live), last event and error',
      parameters: [idParam],
      responses: { 200: json(ref('SubscriptionHealth')), ...errors(404) },
    },
  },
  '/v1/subscriptions/{id}/poll': {
    post: {
      summary:
        'Poll now: an active polled trigger is polled within a second; its health shows the last and next poll',
      parameters: [idParam],
      responses: { 200: json(ref('Subscription')), ...errors(404, 409) },
    },
  },
  '/v1/subscriptions/{id}/events': {
    get: {
      summary:
        'The recent deliveries and polls of a subscription, newest first, each with its outcome for it and why',
      parameters: [idParam, q('limit', 'At most this many (1-100, default 100)')],
      responses: { 200: json(listOf('events', 'SubscriptionEvent')), ...errors(400, 404) },
    },
  },
  '/v1/webhooks/{id}/events': {
    get: {
      summary:
        'The recent deliveries to a webhook (its id is in a subscription health), each with its outcome for every subscription on it',
      parameters: [idParam, q('limit', 'At most this many (1-100, default 100)')],
      responses: { 200: json(listOf('events', 'WebhookEvent')), ...errors(400, 404) },
    },
  },
  '/hooks/{token}': {
    head: {
      summary: "A platform's check of the address before it creates a webhook",
      security: [],
      parameters: [{ name: 'token', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        200: { description: 'The address belongs to a webhook being created or in use' },
        404: { description: 'Unknown address' },
      },
    },
    post: {
      summary:
        'The webhook intake: platforms deliver events here; the signature, not an API key, authenticates the caller',
      description:
        'The body is read as raw bytes (at most 1 MiB) and verified before anything is parsed. 200 is answered only once every event is stored and its runs queued. See docs/triggers.md.',
      security: [],
      parameters: [{ name: 'token', in: 'path', required: true, schema: { type: 'string' } }],
      requestBody: { required: true, content: { '*/*': { schema: {} } } },
      responses: {
        200: json(
          {
            type: 'object',
            required: ['accepted', 'duplicates'],
            properties: {
              accepted: { type: 'integer', description: 'Events that started runs' },
              duplicates: { type: 'integer', description: 'Events already received' },
            },
          },
          'Stored',
        ),
        ...errors(400, 401, 404, 410, 413),
      },
    },
  },
}
