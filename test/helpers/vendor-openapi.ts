import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { Ajv, type ErrorObject } from 'ajv'
import formatsModule, { type FormatsPlugin } from 'ajv-formats'
import { missingVendorFile, VENDOR_OPENAPI_DIR } from './openapi-contract.ts'

/**
 * A second reading of a vendor OpenAPI file, for Vercel's (openapi-contract.ts reads Zendesk's and
 * Trello's). Vercel's file is generated from a TypeScript SDK: its `oneOf` members overlap (a short
 * form of an object is a subset of the full one), `nullable` sits beside `enum`, `oneOf` and `$ref`,
 * and errors are documented without bodies. The file is found as openapi-contract.ts finds it:
 * beside the repository as in CI, or in VENDOR_OPENAPI_DIR; missing, it fails the run under CI=true.
 */

export interface OpenApiDocument {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>>
}

/**
 * `closed`: an object may carry only the properties its schema declares (where the schema says
 * nothing about others). With overlapping union members this is what makes a response match the
 * member it means, not a smaller one that would accept anything: every field sent is documented.
 */
export function loadVendorOpenApi(file: string, options: { closed?: boolean } = {}): OpenApiDocument | undefined {
  if (missingVendorFile(file)) return undefined
  return asJsonSchema(JSON.parse(readFileSync(resolve(VENDOR_OPENAPI_DIR, file), 'utf8')), options.closed ?? false) as OpenApiDocument
}

/**
 * The vendors' OpenAPI 3.0 schemas as JSON Schema means them:
 * - `nullable: true` becomes a `null` type (Ajv accepts `nullable` only beside a `type`, and the
 *   files also put it beside `enum`, `oneOf` and `$ref`);
 * - `oneOf` becomes `anyOf`: the members overlap (a short form of an object is a subset of its
 *   full form, and none forbids other properties), so a real response matches several of them,
 *   as the generated clients (which pick the best-fitting member) read it.
 */
function asJsonSchema(node: unknown, closed: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => asJsonSchema(item, closed))
  if (typeof node !== 'object' || node === null) return node
  const { nullable, oneOf, ...rest } = node as Record<string, unknown>
  // The parts of an allOf each declare some of the properties: none of them may be closed.
  const schema = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, asJsonSchema(value, closed && key !== 'allOf')]))
  if (oneOf !== undefined) schema.anyOf = asJsonSchema(oneOf, closed)
  if (closed && typeof schema.properties === 'object' && schema.additionalProperties === undefined && !schema.allOf) schema.additionalProperties = false
  if (nullable !== true) return nullable === undefined ? schema : { ...schema, nullable }
  if (Array.isArray(schema.enum)) schema.enum = [...schema.enum, null]
  if (typeof schema.type === 'string' && !schema.anyOf && !schema.allOf && !schema.$ref) return { ...schema, type: [schema.type, 'null'] }
  return { anyOf: [schema, { type: 'null' }] }
}

export interface Exchange {
  method: string
  /** The OpenAPI path template, e.g. `/v13/deployments/{idOrUrl}`. */
  template: string
  status: number
  body: unknown
}

// ajv-formats is CommonJS: depending on the loader its plugin is the default import or its `default`.
const formatsExport = formatsModule as unknown as FormatsPlugin | { default: FormatsPlugin }
const addFormats: FormatsPlugin = 'default' in formatsExport ? formatsExport.default : formatsExport

/** Departures from the document a test accepts, each with the reason. */
export interface Tolerated {
  /** Properties the document does not declare (newer than the file; `property → why`). */
  properties?: Record<string, string>
  /** `METHOD template status → why`, e.g. `GET /v9/projects/{idOrName} 404`. */
  statuses?: Record<string, string>
}

/**
 * Checks responses against the document's schema for that path, method and status. A status the
 * document does not list is a finding. A status listed without a schema (the vendors document
 * most error statuses so) is not checked further.
 */
export function responseChecker(document: OpenApiDocument, tolerated: Tolerated = {}) {
  const toleratedError = (e: ErrorObject) =>
    e.keyword === 'additionalProperties' && Object.hasOwn(tolerated.properties ?? {}, String(e.params.additionalProperty))
  // OpenAPI keywords (`discriminator`, `example`, `x-…`) are not JSON Schema errors.
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, discriminator: false })
  addFormats(ajv)
  ajv.addSchema(document, 'vendor')
  const pointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1')
  return (exchange: Exchange): string[] => {
    const where = `${exchange.method.toUpperCase()} ${exchange.template} → ${exchange.status}`
    const operation = document.paths[exchange.template]?.[exchange.method.toLowerCase()]
    if (!operation) return [`${where}: no such operation in the document`]
    const response = operation.responses?.[String(exchange.status)]
    if (!response) {
      const key = `${exchange.method.toUpperCase()} ${exchange.template} ${exchange.status}`
      return Object.hasOwn(tolerated.statuses ?? {}, key) ? [] : [`${where}: status not documented`]
    }
    if (!response.content?.['application/json']) return []
    const ref = `vendor#/paths/${pointer(exchange.template)}/${exchange.method.toLowerCase()}/responses/${exchange.status}/content/application~1json/schema`
    const validate = ajv.getSchema(ref)
    if (!validate) return [`${where}: schema not found`]
    if (validate(exchange.body)) return []
    return closestMember((validate.errors ?? []), toleratedError).map((e) => `${where}: ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`)
  }
}

/**
 * The errors that stand once tolerated ones are set aside. When a response is a union, Ajv reports
 * every member's errors: the response passes if one member has none left, and otherwise the
 * errors that matter are those of the member it came closest to.
 */
function closestMember(errors: ErrorObject[], tolerated: (e: ErrorObject) => boolean): ErrorObject[] {
  const byMember = new Map<string, ErrorObject[]>()
  const outside: ErrorObject[] = []
  for (const error of errors) {
    if (error.keyword === 'anyOf' && error.schemaPath === '#/anyOf') continue
    const member = /^#\/anyOf\/(\d+)\//.exec(error.schemaPath)?.[1]
    if (member === undefined) outside.push(error)
    else byMember.set(member, [...(byMember.get(member) ?? []), error])
  }
  const standing = (list: ErrorObject[]) => list.filter((e) => !tolerated(e) && e.keyword !== 'anyOf')
  const members = [...byMember.values()].map(standing).sort((a, b) => a.length - b.length)
  return [...standing(outside), ...(members[0] ?? [])]
}
