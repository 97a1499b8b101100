// The model agents part of the OpenAPI document (docs/model-agents.md): model connections,
// approvals and extending a run; the shapes follow src/core/models/.

import { body, errors, idParam, json, ref, time } from './openapi-parts.ts'

const protocols = ['openai-chat', 'openai-responses', 'anthropic', 'openai-compatible']
export const budgetProperties = {
  model_calls: { type: 'integer', minimum: 1 },
  tool_calls: { type: 'integer', minimum: 1 },
  tokens: { type: 'integer', minimum: 1 },
  cost_usd: { type: 'number', exclusiveMinimum: 0, description: 'From the shipped, versioned price table' },
  wall_clock_s: {
    type: 'number',
    exclusiveMinimum: 0,
    description: 'Working time of its model and tool calls',
  },
  tool_errors: { type: 'integer', minimum: 0, description: 'Tool errors the model may repair' },
}

/** The fields a model agent adds to AgentInput. */
export const modelAgentInputProperties = {
  instructions: {
    type: 'string',
    maxLength: 20000,
    description:
      'Model agents: what the model is told, a template over inputs and event ("{{ inputs.ticket_id }}")',
  },
  model: {
    type: 'object',
    required: ['connection', 'name'],
    additionalProperties: false,
    properties: {
      connection: {
        type: 'string',
        description: 'A model connection id or name ("Sandbox model" in the sandbox)',
      },
      name: { type: 'string', description: 'The model name, e.g. gpt-4.1 or sandbox-model' },
    },
  },
  tools: {
    type: 'array',
    maxItems: 64,
    default: [],
    items: {
      type: 'object',
      required: ['tool'],
      additionalProperties: false,
      properties: {
        tool: { type: 'string', description: 'A tool step id, e.g. zendesk.get_ticket' },
        integration: {
          type: 'string',
          description:
            "An integration id or account name; without it, the model chooses among the owner's accounts on the platform",
        },
        name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$', description: 'What the model calls it' },
        description: { type: 'string', maxLength: 1000 },
        require_approval: {
          type: 'boolean',
          description: 'Writes only: each call waits for a person. Destructive steps always do, reads never',
        },
        strict: {
          type: 'boolean',
          description: "Sent in OpenAI's strict mode; saving checks the schema's rules",
        },
      },
    },
  },
  budget: {
    type: 'object',
    additionalProperties: false,
    properties: budgetProperties,
    description: "Per run; within the owner's plan's ceilings, which an author cannot raise",
  },
}

const decider = {
  type: 'object',
  required: ['id', 'name', 'email'],
  description: 'The person who decided, as they were named when they did',
  properties: {
    id: { type: 'string' },
    name: { type: ['string', 'null'] },
    email: { type: ['string', 'null'] },
  },
}

export const modelSchemas = {
  ApprovalNote: {
    type: 'object',
    required: ['approval_id', 'decision', 'by', 'at', 'reason', 'edited'],
    description: "On a model's tool call that waited for a person: who let it run or stopped it, and when",
    properties: {
      approval_id: { type: 'string' },
      decision: {
        enum: ['approve', 'approve_for_run', 'deny', 'expired'],
        description: 'expired: nobody decided in time, so the call counted as denied',
      },
      by: { oneOf: [decider, { type: 'null' }], description: 'Null when the request expired' },
      at: { ...time, description: 'When it was decided, or when the request expired' },
      reason: { type: ['string', 'null'] },
      edited: { type: 'boolean', description: "Approved with edited input: the entry's input is what ran" },
      model_input: { description: 'With edited: the input the model asked for' },
      standing_from: {
        type: 'string',
        description:
          'Set when the call ran under a standing "approve for the rest of the run" with no request of its own: the tool_call_id it was given on; by and at are who gave it and when',
      },
    },
  },
  ApprovalDecision: {
    type: 'object',
    required: ['decision', 'by', 'at'],
    properties: {
      decision: { enum: ['approve', 'approve_for_run', 'deny'] },
      input: { description: "The edited input that runs instead of the call's own (approvals only)" },
      reason: { type: 'string' },
      by: { type: 'string', description: "The deciding person's user id" },
      by_name: { type: 'string' },
      by_email: { type: 'string' },
      at: time,
    },
  },
  ModelConnection: {
    type: 'object',
    required: ['id', 'name', 'protocol', 'base_url', 'has_key', 'shared', 'owner', 'sandbox'],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      protocol: { enum: protocols },
      base_url: { type: 'string' },
      has_key: { type: 'boolean', description: 'Whether a key is stored; the key itself is never returned' },
      shared: { type: 'boolean' },
      owner: { enum: ['you', 'shared', 'sandbox'] },
      sandbox: { type: 'boolean', description: 'The sandbox model: scripted rules, no understanding' },
      created_at: { type: ['string', 'null'], format: 'date-time' },
    },
  },
  ModelConnectionUsage: {
    type: 'object',
    required: ['agents', 'more', 'others', 'summary'],
    properties: {
      agents: {
        type: 'array',
        description: 'Your model agents whose current version uses it (at most 20)',
        items: {
          type: 'object',
          required: ['id', 'name'],
          properties: { id: { type: 'string' }, name: { type: 'string' } },
        },
      },
      more: { type: 'integer', description: 'Your agents past the 20 named' },
      others: { type: 'integer', description: "Other people's agents using a shared connection" },
      summary: { type: ['string', 'null'], description: 'What removing it stops, in words' },
    },
  },
  Approval: {
    type: 'object',
    required: [
      'id',
      'run_id',
      'agent_id',
      'agent_name',
      'status',
      'calls',
      'decisions',
      'created_at',
      'expires_at',
    ],
    properties: {
      id: { type: 'string' },
      run_id: { type: 'string' },
      agent_id: { type: 'string' },
      agent_name: { type: 'string' },
      status: { enum: ['pending', 'decided', 'expired', 'cancelled'] },
      calls: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            tool_call_id: { type: 'string' },
            name: { type: 'string' },
            tool: { type: 'string' },
            effect: { type: 'string' },
            input: {},
            words: { type: 'string', description: 'The call in words' },
          },
        },
      },
      decisions: {
        type: 'object',
        description: "By tool_call_id; a call's own input stays in calls, an edited one is the decision's",
        additionalProperties: ref('ApprovalDecision'),
      },
      created_at: time,
      expires_at: time,
      decided_at: { type: ['string', 'null'], format: 'date-time' },
    },
  },
}

export const modelPaths = {
  '/v1/model-connections': {
    get: {
      summary: 'Model connections you may use: yours, shared ones, and the sandbox model',
      responses: {
        200: json({
          type: 'object',
          properties: { model_connections: { type: 'array', items: ref('ModelConnection') } },
        }),
      },
    },
    post: {
      summary: 'Connect a model provider; the key is sealed and never returned',
      requestBody: body({
        type: 'object',
        required: ['name', 'protocol', 'base_url'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', maxLength: 100 },
          protocol: { enum: protocols },
          base_url: { type: 'string', format: 'uri' },
          api_key: { type: 'string', writeOnly: true },
          shared: { type: 'boolean', default: false, description: 'Admins only: every user may use it' },
        },
      }),
      responses: { 201: json(ref('ModelConnection'), 'Connected'), ...errors(400, 403) },
    },
  },
  '/v1/model-connections/{id}': {
    patch: {
      summary:
        "Rotate a connection's key, or change its base URL or name, in place: agents using it keep working and the next model call of a run in progress uses the change",
      description:
        "One's own connection, or a shared one by an admin (403 for anyone else who may use it); another person's own connection answers 404. The key is sealed and never returned.",
      parameters: [idParam],
      requestBody: body({
        type: 'object',
        additionalProperties: false,
        properties: {
          name: { type: 'string', maxLength: 100 },
          base_url: { type: 'string', format: 'uri' },
          api_key: {
            type: ['string', 'null'],
            writeOnly: true,
            description: 'The new key; null removes it (OpenAI-compatible servers only)',
          },
        },
      }),
      responses: { 200: json(ref('ModelConnection'), 'Changed'), ...errors(400, 403, 404) },
    },
    delete: {
      summary: 'Remove a model connection',
      description: "One's own, or a shared one by an admin (403 for anyone else who may use it).",
      parameters: [idParam],
      responses: { 204: { description: 'Removed' }, ...errors(403, 404) },
    },
  },
  '/v1/model-connections/{id}/usage': {
    get: {
      summary: 'The model agents that use it, so a removal can say what stops',
      parameters: [idParam],
      responses: { 200: json(ref('ModelConnectionUsage')), ...errors(404) },
    },
  },
  '/v1/approvals': {
    get: {
      summary: "Model runs' tool calls waiting for a person",
      parameters: [
        {
          name: 'status',
          in: 'query',
          schema: { enum: ['pending', 'decided', 'expired', 'cancelled', 'all'], default: 'pending' },
        },
      ],
      responses: {
        200: json({ type: 'object', properties: { approvals: { type: 'array', items: ref('Approval') } } }),
        ...errors(400),
      },
    },
  },
  '/v1/approvals/{id}': {
    get: {
      summary: 'One approval request',
      parameters: [idParam],
      responses: { 200: json(ref('Approval')), ...errors(404) },
    },
  },
  '/v1/approvals/{id}/decide': {
    post: {
      summary:
        'Approve, approve with edited input, approve for the rest of the run, or deny with a reason, per call',
      parameters: [idParam],
      requestBody: body({
        type: 'object',
        required: ['decisions'],
        additionalProperties: false,
        properties: {
          decisions: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              required: ['tool_call_id', 'decision'],
              additionalProperties: false,
              properties: {
                tool_call_id: { type: 'string' },
                decision: { enum: ['approve', 'approve_for_run', 'deny'] },
                input: { type: 'object', description: "Edited input, checked against the step's schema" },
                reason: { type: 'string', maxLength: 2000, description: 'Given to the model with a denial' },
              },
            },
          },
        },
      }),
      responses: { 200: json(ref('Approval')), ...errors(400, 404, 409) },
    },
  },
  '/v1/runs/{id}/extend': {
    post: {
      summary: 'Add to the budget of a model run that ran out, and continue it from its transcript',
      parameters: [idParam],
      requestBody: body({ type: 'object', additionalProperties: false, properties: budgetProperties }),
      responses: { 200: json(ref('Run')), ...errors(400, 404, 409) },
    },
  },
}
