import fs from 'node:fs'
import path from 'node:path'
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import yaml from 'js-yaml'

/**
 * Sandbox contract tests check the sandboxes' answers against the vendors' own OpenAPI files
 * (docs/sandbox.md, "Contract tests"). Those files are not part of the repository: CI checks them
 * out beside it, as `<repo>/../shared/reference/openapi/`. VENDOR_OPENAPI_DIR points elsewhere
 * (a git worktree, for example). Under CI=true a missing file fails the run; elsewhere the suite
 * skips and says why.
 */

const REPO_ROOT = path.resolve(import.meta.dirname, '../..')
export const VENDOR_OPENAPI_DIR = process.env.VENDOR_OPENAPI_DIR ?? path.resolve(REPO_ROOT, '../shared/reference/openapi')

/** Why the vendor file is unusable, or undefined when it is there. Throws under CI=true. */
export function missingVendorFile(relative: string): string | undefined {
  const where = path.resolve(VENDOR_OPENAPI_DIR, relative)
  if (fs.existsSync(where)) return undefined
  const reason = `vendor OpenAPI file ${where} is missing (set VENDOR_OPENAPI_DIR or check out shared/ beside the repo)`
  if (process.env.CI === 'true') throw new Error(`CI=true: ${reason}`)
  return reason
}

type Json = any

export interface VendorOperation {
  /** The vendor's path template, e.g. `/api/v2/tickets/{ticket_id}`. */
  path: string
  method: string
  operationId?: string
  parameters: Array<{ name: string; in: string }>
  responses: Record<string, Json>
}

export interface ContractResult {
  /** Problems found, each `where: what`; empty when the answer keeps the contract. */
  errors: string[]
  /** Component schemas the answer's schema refers to but no vendor file defines. */
  absent: string[]
}

/**
 * A vendor OpenAPI document: one JSON or YAML file, or a folder of files that split one API by area
 * (Zendesk's). A folder's paths and components are merged, so a `$ref` in one file finds its target
 * in another.
 */
export class VendorSpec {
  private readonly paths: Record<string, Record<string, Json>> = {}
  private readonly schemas: Record<string, Json> = {}
  private readonly parameters: Record<string, Json> = {}
  private readonly ajv = new Ajv({ allErrors: true, strict: true })
  private readonly validators = new Map<string, { validate: ValidateFunction; absent: string[] }>()

  constructor(relative: string) {
    const where = path.resolve(VENDOR_OPENAPI_DIR, relative)
    const files = fs.statSync(where).isDirectory()
      ? fs.readdirSync(where).filter((f) => /\.(ya?ml|json)$/.test(f)).sort().map((f) => path.join(where, f))
      : [where]
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8')
      const doc = file.endsWith('.json') ? JSON.parse(text) : yaml.load(text)
      for (const [p, item] of Object.entries<Record<string, Json>>(doc.paths ?? {})) {
        this.paths[p] ??= {}
        for (const [key, value] of Object.entries(item)) mergeOnce(this.paths[p], key, value, `${file}: paths ${p} ${key}`)
      }
      for (const [name, value] of Object.entries(doc.components?.schemas ?? {})) mergeOnce(this.schemas, name, value, `${file}: schema ${name}`)
      for (const [name, value] of Object.entries(doc.components?.parameters ?? {})) mergeOnce(this.parameters, name, value, `${file}: parameter ${name}`)
    }
    addFormats(this.ajv)
  }

  operation(method: string, template: string): VendorOperation | undefined {
    const item = this.paths[template]
    const op = item?.[method.toLowerCase()]
    if (!op) return undefined
    const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])]
      .map((p: Json) => (p.$ref ? this.parameters[refName(p.$ref)] ?? { name: refName(p.$ref), in: 'unknown' } : p))
    return { path: template, method: method.toUpperCase(), operationId: op.operationId, parameters, responses: op.responses ?? {} }
  }

  /** A component schema as the vendor file gives it. */
  schema(name: string): Json | undefined {
    return this.schemas[name]
  }

  /** The `example` the vendor gives with a component schema, e.g. `example('TicketsResponse')`. */
  example(name: string): Json | undefined {
    return this.schemas[name]?.example
  }

  /** Checks an answer's status, documented headers and JSON body against what the operation documents. */
  check(op: VendorOperation, status: number, body: unknown, headers?: Headers): ContractResult {
    const documented = op.responses[String(status)]
    const where = `${op.method} ${op.path} → ${status}`
    if (!documented) return { errors: [`${where}: status not documented (documented: ${Object.keys(op.responses).join(', ') || 'none'})`], absent: [] }
    const errors = Object.keys(documented.headers ?? {})
      .filter((name) => headers && !headers.has(name))
      .map((name) => `${where}: documented header ${name} is missing`)
    const schema = documented.content?.['application/json']?.schema
    if (!schema) {
      if (body !== undefined && body !== '') errors.push(`${where}: documented without a body, answered ${JSON.stringify(body).slice(0, 200)}`)
      return { errors, absent: [] }
    }
    const { validate, absent } = this.validator(`${op.method} ${op.path} ${status}`, schema)
    if (!validate(body)) {
      errors.push(...(validate.errors ?? []).map((e: ErrorObject) => `${where}: body${e.instancePath || ''} ${e.message} ${JSON.stringify(e.params)}`))
    }
    return { errors, absent }
  }

  private validator(key: string, schema: Json) {
    const cached = this.validators.get(key)
    if (cached) return cached
    const absent = new Set<string>()
    const defs: Record<string, Json> = {}
    const pending = [...refsIn(schema)]
    while (pending.length) {
      const name = pending.pop()!
      if (name in defs) continue
      const target = this.schemas[name]
      if (target === undefined) {
        absent.add(name)
        // The vendor file names this schema but does not define it: only its kind is known.
        defs[name] = { type: 'object' }
        continue
      }
      defs[name] = toJsonSchema(target)
      pending.push(...refsIn(target))
    }
    const compiled = { validate: this.ajv.compile({ ...toJsonSchema(schema), definitions: defs }), absent: [...absent].sort() }
    this.validators.set(key, compiled)
    return compiled
  }
}

/** Files of one split document repeat some paths and schemas; a repeat must say the same thing. */
function mergeOnce(into: Record<string, Json>, key: string, value: Json, where: string): void {
  if (key in into && JSON.stringify(into[key]) !== JSON.stringify(value)) throw new Error(`${where} differs from an earlier file's`)
  into[key] = value
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

function refName(ref: string): string {
  return ref.trim().split('/').pop()!
}

function refsIn(schema: Json): string[] {
  const found: string[] = []
  const walk = (node: Json) => {
    if (Array.isArray(node)) node.forEach(walk)
    else if (node && typeof node === 'object') {
      if (typeof node.$ref === 'string' && node.$ref.trim().startsWith('#/components/schemas/')) found.push(refName(node.$ref))
      Object.values(node).forEach(walk)
    }
  }
  walk(schema)
  return found
}

/** OpenAPI annotations that JSON Schema validation does not use. */
const ANNOTATIONS = new Set(['example', 'examples', 'readOnly', 'writeOnly', 'xml', 'externalDocs', 'deprecated', 'discriminator'])
/**
 * Format names the vendor files use that are not JSON Schema's. `datetime` and `url` mean
 * `date-time` and `uri`; `string` says nothing beyond the type.
 */
const FORMAT_ALIASES: Record<string, string | undefined> = { datetime: 'date-time', url: 'uri', string: undefined }

/** OpenAPI 3.0 schema dialect (nullable, annotations, component refs) to JSON Schema draft-07. */
function toJsonSchema(node: Json): Json {
  if (Array.isArray(node)) return node.map(toJsonSchema)
  if (!node || typeof node !== 'object') return node
  const out: Json = {}
  for (const [key, value] of Object.entries<Json>(node)) {
    if (ANNOTATIONS.has(key) || key.startsWith('x-') || key === 'nullable') continue
    if (key === '$ref') out.$ref = `#/definitions/${refName(value)}`
    else if (key === 'format') {
      const format = value in FORMAT_ALIASES ? FORMAT_ALIASES[value] : value
      if (format) out.format = format
    } else if (key === 'properties') out.properties = Object.fromEntries(Object.entries<Json>(value).map(([k, v]) => [k, toJsonSchema(v)]))
    else out[key] = toJsonSchema(value)
  }
  if (node.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null']
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null]
    if (out.$ref) return { anyOf: [{ $ref: out.$ref }, { type: 'null' }] }
  }
  return out
}

/**
 * Where a vendor file lacks an object's schema but shows the object in an example, the example is
 * the best account of its fields: every key the example has must be there, with the example's JSON
 * type or null (the example shows a set value; an unset one is null, never left out).
 */
export function shapeLike(value: Json, example: Json, where: string): string[] {
  const errors: string[] = []
  for (const [key, sample] of Object.entries<Json>(example)) {
    if (!(key in value)) errors.push(`${where}.${key}: missing (the vendor example has ${JSON.stringify(sample)})`)
    else if (value[key] !== null && sample !== null && kindOf(value[key]) !== kindOf(sample)) {
      errors.push(`${where}.${key}: ${kindOf(value[key])} where the vendor example has ${kindOf(sample)}`)
    }
  }
  return errors
}

function kindOf(v: Json): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  return typeof v
}
