// The model agents' admin part of the OpenAPI document (docs/model-agents.md): prices over the
// shipped table, the plans' budget ceilings, and approval webhooks; shapes follow src/core/models/.

import { budgetProperties } from './openapi-models.ts'
import { body, errors, json, ref, sent, time } from './openapi-parts.ts'

const perMTok = { type: 'number', minimum: 0, maximum: 100000, description: 'US dollars per million tokens' }
const budget = sent(budgetProperties)

export const modelAdminSchemas = {
  PriceTable: sent({
    version: {
      type: 'string',
      description: "What runs' model calls name: the shipped version, +N for the admin's",
    },
    shipped_version: { type: 'string' },
    override_version: {
      type: 'integer',
      minimum: 0,
      description: "The admin's version; 0 for the shipped table alone",
    },
    prices: {
      type: 'array',
      items: sent({
        model: { type: 'string' },
        input_per_mtok: { type: 'number' },
        output_per_mtok: { type: 'number' },
        source: { enum: ['shipped', 'admin'] },
      }),
    },
  }),
  PlanCeilings: sent({
    plan: { enum: ['free', 'pro', 'enterprise'] },
    ceilings: { ...budget, description: 'What holds now' },
    shipped: budget,
    overridden: { type: 'array', items: { type: 'string' }, description: 'The fields an admin set' },
    updated_at: { type: ['string', 'null'], format: 'date-time' },
  }),
  ApprovalWebhook: sent(
    {
      scope: { enum: ['mine', 'installation'] },
      url: { type: 'string' },
      created_at: time,
      secret: {
        type: 'string',
        description: 'The Standard Webhooks secret (whsec_…), in the answer that sets the webhook only',
      },
    },
    ['secret'],
  ),
}

const webhookPath = (who: string, codes: number[]) => ({
  get: {
    summary: `The approval webhook ${who}`,
    responses: { 200: json(ref('ApprovalWebhook')), ...errors(...codes, 404) },
  },
  put: {
    summary: `Set the approval webhook ${who}: a signed POST each time an approval starts waiting; the answer holds its secret, once`,
    requestBody: body({
      type: 'object',
      required: ['url'],
      additionalProperties: false,
      properties: { url: { type: 'string', format: 'uri' } },
    }),
    responses: { 200: json(ref('ApprovalWebhook')), ...errors(400, ...codes) },
  },
  delete: {
    summary: `Remove the approval webhook ${who}`,
    responses: { 204: { description: 'Removed' }, ...errors(...codes, 404) },
  },
})

export const modelAdminPaths = {
  '/v1/model-prices': {
    get: {
      summary: 'The prices model calls are counted with: the shipped table under an admin’s overrides',
      parameters: [
        {
          name: 'version',
          in: 'query',
          schema: { type: 'integer', minimum: 0 },
          description: "An earlier admin version (override_version), as a run's model calls name it",
        },
      ],
      responses: { 200: json(ref('PriceTable')), ...errors(400, 404) },
    },
    patch: {
      summary: 'Admins: set models’ prices (null goes back to the shipped price); makes a new version',
      requestBody: body({
        type: 'object',
        required: ['prices'],
        additionalProperties: false,
        properties: {
          prices: {
            type: 'object',
            additionalProperties: {
              oneOf: [
                {
                  type: 'object',
                  required: ['input_per_mtok', 'output_per_mtok'],
                  additionalProperties: false,
                  properties: { input_per_mtok: perMTok, output_per_mtok: perMTok },
                },
                { type: 'null' },
              ],
            },
          },
        },
      }),
      responses: { 200: json(ref('PriceTable')), ...errors(400, 403, 409) },
    },
  },
  '/v1/plan-ceilings': {
    get: {
      summary: "Each plan's budget ceilings for model agents, which an agent's author cannot raise",
      responses: {
        200: json(sent({ plans: { type: 'array', items: ref('PlanCeilings') } })),
      },
    },
  },
  '/v1/plan-ceilings/{plan}': {
    put: {
      summary: "Admins: set a plan's ceilings; fields left out go back to the shipped ones",
      parameters: [
        { name: 'plan', in: 'path', required: true, schema: { enum: ['free', 'pro', 'enterprise'] } },
      ],
      requestBody: body({ type: 'object', additionalProperties: false, properties: budgetProperties }),
      responses: { 200: json(ref('PlanCeilings')), ...errors(400, 403, 404) },
    },
  },
  '/v1/approval-webhook': webhookPath('for your runs', []),
  '/v1/admin/approval-webhook': webhookPath('for the whole installation (admins)', [403]),
}
