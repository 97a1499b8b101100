import { STATUS_CODES } from 'node:http'
import { z } from 'zod'
import { defineTool, type AnyTool } from '../tools/define.ts'
import type { HttpMethod } from '../http/method.ts'
import type { PastedCredentialFacts, PlatformDefinition } from '../platforms/types.ts'
import { parseEndpoint } from '../http/endpoint.ts'
import { FORBIDDEN_HEADERS, pickUsefulHeaders } from './headers.ts'
import { MAP_PATH, resolvePath } from './map.ts'
import { rateLimitStatus, RateLimitStatus } from './rate-limit-status.ts'
import type { RateLimitFacts } from '../limits/rate-limit-headers.ts'

const BODY_METHODS: ReadonlySet<HttpMethod> = new Set(['POST', 'PUT', 'PATCH'])

type PlatformFacts = Pick<PlatformDefinition, 'id' | 'title' | 'api'> & {
  pasted?: PastedCredentialFacts
  rateLimit?: RateLimitFacts
}

/**
 * `auth`, only for platforms that take pasted credentials (elsewhere there is no choice to offer, so
 * no field): the connected integration by default, or credentials given beside it in the step's
 * configuration (they are secrets: never echoed, logged or stored). A choice and plain fields, so a
 * form can show a select and one input per credential rather than a box of JSON.
 */
function authInputs(pasted: PastedCredentialFacts) {
  const names = pasted.fields.map((f) => f.name).join(' and ')
  return {
    // optionLabels: the web app's select shows these words for the codes (src/web/schema-form.ts).
    auth: z
      .enum(['integration', pasted.methodName])
      .default('integration')
      .meta({
        optionLabels: { integration: 'The connected account', [pasted.methodName]: `A ${names} given here` },
      })
      .describe(
        `How to authenticate: "integration" (the connected account) or "${pasted.methodName}" with the ${names} given here`,
      ),
    // shownWhen: the web app shows these only while auth is the pasted method (src/web/schema-form.ts).
    ...Object.fromEntries(
      pasted.fields.map((f) => [
        f.name,
        f.schema
          .optional()
          .meta({ writeOnly: true, shownWhen: { auth: pasted.methodName } })
          .describe(`${f.label} (secret), only with auth "${pasted.methodName}"`),
      ]),
    ),
  }
}

/** Credentials given in the step go with their method, and only with it: none are silently ignored. */
function checkGivenCredentials(
  pasted: PastedCredentialFacts,
  value: Record<string, unknown>,
  ctx: z.RefinementCtx,
) {
  for (const field of pasted.fields) {
    const given = value[field.name] !== undefined
    if (value.auth === pasted.methodName && !given)
      ctx.addIssue({
        code: 'custom',
        path: [field.name],
        message: `is required with auth "${pasted.methodName}"`,
      })
    if (value.auth !== pasted.methodName && given)
      ctx.addIssue({
        code: 'custom',
        path: [field.name],
        message: `is only used with auth "${pasted.methodName}"`,
      })
  }
}

/**
 * The generic API Call step of a platform: one request forwarded with the integration's
 * credentials through the same host-pinned client as every pre-built step.
 *
 * On a 429 it does not wait: it fails at once with `rate_limited` and `retry_after`, because the
 * caller chose to speak the raw API and should decide its own schedule (pre-built steps wait).
 * Every other status, 4xx and 5xx included, is returned as data: it is the platform's answer.
 */
export function defineApiCallTool(platform: PlatformFacts): AnyTool {
  const { pathPrefix: prefix, pathHelp, mapExample } = platform.api
  const input = z
    .object({
      ...(platform.pasted && authInputs(platform.pasted)),
      method: z.enum(platform.api.apiCallMethods as [HttpMethod, ...HttpMethod[]]),
      endpoint: z
        .string()
        .min(1)
        .superRefine((value, ctx) => {
          if (value === '') return // "is required" already says it
          try {
            parseEndpoint(value, prefix, 'endpoint', pathHelp)
          } catch (err: any) {
            ctx.addIssue({
              code: 'custom',
              message: err.extras?.errors?.[0]?.message ?? 'is not a safe endpoint',
            })
          }
        })
        .describe(
          `The path, starting with ${pathHelp.prefix}, for example ${pathHelp.example}; a query string is allowed`,
        )
        .meta({ examples: [pathHelp.example] }),
      query: z
        .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
        .optional()
        .describe('Query parameters, added to any already in the endpoint'),
      body: z.unknown().optional().describe('JSON body, for POST, PUT and PATCH'),
      headers: z
        .record(z.string(), z.string())
        .optional()
        .superRefine((headers, ctx) => {
          for (const [name, value] of Object.entries(headers ?? {})) {
            if (!/^[A-Za-z0-9-]{1,64}$/.test(name))
              ctx.addIssue({ code: 'custom', path: [name], message: 'is not a valid header name' })
            else if (FORBIDDEN_HEADERS.has(name.toLowerCase()) || name.toLowerCase().startsWith('proxy-')) {
              ctx.addIssue({ code: 'custom', path: [name], message: 'cannot be set by the caller' })
            }
            // eslint-disable-next-line no-control-regex
            if (/[\u0000-\u001f\u007f]/.test(value))
              ctx.addIssue({ code: 'custom', path: [name], message: 'must not contain control characters' })
            // HTTP carries header values as Latin-1 bytes; anything beyond cannot be sent as given.
            else if (/[\u0100-\uffff]/.test(value)) {
              ctx.addIssue({
                code: 'custom',
                path: [name],
                message: 'must contain only Latin-1 characters (percent-encode others, as RFC 8187 does)',
              })
            }
          }
        })
        .describe('Extra request headers; Authorization, Host, Cookie and hop-by-hop headers are refused'),
      map: z
        .record(
          z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'variable names are letters, digits and _'),
          z.string().regex(MAP_PATH, 'a path like body.ticket.id or body.tickets[0].subject'),
        )
        .optional()
        .describe(
          `Values to keep from the answer for later steps of a workflow: a variable name, then where to find it in {status, headers, body}; for example ${mapExample.name} → ${mapExample.path}`,
        )
        .meta({ examples: [{ [mapExample.name]: mapExample.path }] }),
    })
    .superRefine((value, ctx) => {
      if (value.body !== undefined && !BODY_METHODS.has(value.method)) {
        ctx.addIssue({
          code: 'custom',
          path: ['body'],
          message: `is only sent with POST, PUT or PATCH, not ${value.method}`,
        })
      }
      if (platform.pasted) checkGivenCredentials(platform.pasted, value, ctx)
    })

  return defineTool({
    id: `${platform.id}.api_call`,
    title: `${platform.title} API Call`,
    description: `Send one request to the ${platform.title} API with this integration's credentials and get back its status, useful headers and body.`,
    effect: 'write',
    // The method is an input, and hints belong to the tool, not the call: it may be a DELETE.
    destructive: true,
    input,
    output: z.object({
      status: z.number().int(),
      headers: z.record(z.string(), z.string()),
      body: z.unknown(),
      rate_limit: RateLimitStatus.nullable().describe('What the response headers say of the rate limit'),
      variables: z.record(z.string(), z.unknown()),
    }),
    // A 4xx or 5xx is returned as data, but a person must not read it as a success. The query string
    // is left out: it is the caller's to repeat, and could carry a value that belongs in no log line.
    summarize: ({ status }, { input }) => ({
      text: `${platform.title} answered ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''} to ${input.method} ${input.endpoint.split('?')[0]}`,
      ...(status >= 400 ? { tone: 'error' as const } : {}),
    }),
    async run({ api, withPastedCredentials }, call) {
      const query = Object.fromEntries(Object.entries(call.query ?? {}).map(([k, v]) => [k, String(v)]))
      const given = call as Record<string, unknown>
      const client =
        !platform.pasted || given.auth !== platform.pasted.methodName
          ? api
          : withPastedCredentials(
              Object.fromEntries(platform.pasted.fields.map((f) => [f.name, String(given[f.name])])),
            )
      const response = await client.request(
        { method: call.method, path: call.endpoint, query, body: call.body, headers: call.headers },
        { rateLimit: { kind: 'fail' } },
      )
      const result = {
        status: response.status,
        headers: pickUsefulHeaders(response.headers, platform.api.usefulHeaders),
        body: response.body,
        rate_limit: platform.rateLimit ? rateLimitStatus(platform.rateLimit, response.headers) : null,
      }
      const variables = Object.fromEntries(
        Object.entries(call.map ?? {}).map(([name, path]) => [name, resolvePath(result, path) ?? null]),
      )
      return { ...result, variables }
    },
  })
}
