import fs from 'node:fs'
import path from 'node:path'
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import formatsModule, { type FormatsPlugin } from 'ajv-formats'
import yaml from 'js-yaml'

/**
 * Sandbox contract tests check the sandboxes' answers against the vendors' own OpenAPI files
 * (docs/sandbox.md, "Contract tests"). Those files are not part of the repository: CI checks them
 * out beside it, as `<repo>/../shared/reference/openapi/`. VENDOR_OPENAPI_DIR points elsewhere
 * (a git worktree, for example). Under CI=true a missing file fails the run; elsewhere the suite
 * skips and says why.
 */

const REPO_ROOT = path.resolve(import.meta.dirname, '../..')
export const VENDOR_OPENAPI_DIR =
  process.env.VENDOR_OPENAPI_DIR ?? path.resolve(REPO_ROOT, '../shared/reference/openapi')

/** Why the vendor file is unusable, or undefined when it is there. Throws under CI=true. */
export function missingVendorFile(relative: string): string | undefined {
  const where = path.resolve(VENDOR_OPENAPI_DIR, relative)
  if (fs.existsSync(where)) return undefined
  const reason = `vendor OpenAPI file ${where} is missing (set VENDOR_OPENAPI_DIR or check out shared/ beside the repo)`
  if (process.env.CI === 'true') throw new Error(`CI=true: ${reason}`)
  return reason
}

type Json = any

/** How to read one vendor's file, where the vendors' files differ. */
export interface Reading {
  /**
   * An object may carry only the properties its schema declares (where the schema says nothing
   * of others). With overlapping union members this is what makes an answer match the member it
   * means, not a smaller one that would accept anything: every field sent is documented. The
   * parts of an `allOf` each declare some of the properties, so a part stays open at its top.
   */
  closed?: boolean
  /**
   * `oneOf` read as `anyOf`, for a file generated from an SDK whose union members overlap (a short
   * form of an object is a subset of the full one): a real answer matches several of them, as the
   * generated clients (which pick the best-fitting member) read it.
   */
  oneOfAsAnyOf?: boolean
  /** The file lists error statuses without their bodies: the body of a 4xx or 5xx is not judged. */
  errorBodiesUndocumented?: boolean
  /** Departures from the file the test accepts, each with the reason. */
  tolerated?: Tolerated
  /**
   * Ajv's strict mode off, for a file in OpenAPI 3.1 (OpenAI's) whose schemas use keywords draft-07
   * does not know (`$recursiveAnchor`) and `required` beside no `type`: what the file says of the
   * values is still checked, the keywords it adds are ignored.
   */
  lenientKeywords?: boolean
}

export interface Tolerated {
  /** Properties a closed object may carry though the file does not declare them (`property → why`). */
  properties?: Record<string, string>
  /** Statuses the file does not list for an operation (`METHOD template status → why`). */
  statuses?: Record<string, string>
}

export interface VendorOperation {
  /** The vendor's path template, e.g. `/api/v2/tickets/{ticket_id}`. */
  path: string
  method: string
  operationId?: string
  parameters: Array<{ name: string; in: string }>
  responses: Record<string, Json>
}

/** One answer of a sandbox, with the vendor operation it answers. */
export interface Answer {
  method: string
  /** The vendor's path template, e.g. `/v13/deployments/{idOrUrl}`. */
  template: string
  status: number
  body: unknown
  headers?: Headers
}

export interface ContractResult {
  /** Problems found, each `where: what`; empty when the answer keeps the contract. */
  errors: string[]
  /** Component schemas the answer's schema refers to but no vendor file defines. */
  absent: string[]
}

// ajv-formats is CommonJS: depending on the loader its plugin is the default import or its `default`.
const formatsExport = formatsModule as unknown as FormatsPlugin | { default: FormatsPlugin }
const addFormats: FormatsPlugin = 'default' in formatsExport ? formatsExport.default : formatsExport

/**
 * A vendor OpenAPI document: one JSON or YAML file, or a folder of files that split one API by area
 * (Zendesk's). A folder's paths and components are merged, so a `$ref` in one file finds its target
 * in another.
 */
export class VendorSpec {
  private readonly paths: Record<string, Record<string, Json>> = {}
  private readonly schemas: Record<string, Json> = {}
  private readonly parameters: Record<string, Json> = {}
  private readonly ajv: Ajv
  private readonly preparations = new Map<string, { prepared: Json; absent: string[] }>()
  private readonly validators = new Map<Json, ValidateFunction>()
  /** A union member with the definitions its refs need, made once so its validator is compiled once. */
  private readonly memberSchemas = new Map<Json, Json>()

  constructor(
    relative: string,
    private readonly reading: Reading = {},
  ) {
    const where = path.resolve(VENDOR_OPENAPI_DIR, relative)
    const files = fs.statSync(where).isDirectory()
      ? fs
          .readdirSync(where)
          .filter((f) => /\.(ya?ml|json)$/.test(f))
          .sort()
          .map((f) => path.join(where, f))
      : [where]
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8')
      const doc = file.endsWith('.json') ? JSON.parse(text) : yaml.load(text)
      for (const [p, item] of Object.entries<Record<string, Json>>(doc.paths ?? {})) {
        this.paths[p] ??= {}
        for (const [key, value] of Object.entries(item))
          mergeOnce(this.paths[p], key, value, `${file}: paths ${p} ${key}`)
      }
      for (const [name, value] of Object.entries(doc.components?.schemas ?? {}))
        mergeOnce(this.schemas, name, value, `${file}: schema ${name}`)
      for (const [name, value] of Object.entries(doc.components?.parameters ?? {}))
        mergeOnce(this.parameters, name, value, `${file}: parameter ${name}`)
    }
    this.ajv = new Ajv({ allErrors: true, strict: !reading.lenientKeywords, verbose: true })
    addFormats(this.ajv)
  }

  operation(method: string, template: string): VendorOperation | undefined {
    const item = this.paths[template]
    const op = item?.[method.toLowerCase()]
    if (!op) return undefined
    const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: Json) =>
      p.$ref ? (this.parameters[refName(p.$ref)] ?? { name: refName(p.$ref), in: 'unknown' }) : p,
    )
    return {
      path: template,
      method: method.toUpperCase(),
      operationId: op.operationId,
      parameters,
      responses: op.responses ?? {},
    }
  }

  /** A component schema as the vendor file gives it. */
  schema(name: string): Json | undefined {
    return this.schemas[name]
  }

  /** The `example` the vendor gives with a component schema, e.g. `example('TicketsResponse')`. */
  example(name: string): Json | undefined {
    return this.schemas[name]?.example
  }

  /** Checks an answer's status, documented headers and JSON body against what its operation documents. */
  check(answer: Answer): ContractResult {
    const method = answer.method.toUpperCase()
    const where = `${method} ${answer.template} → ${answer.status}`
    const op = this.operation(method, answer.template)
    if (!op) return { errors: [`${where}: no such operation in the vendor file`], absent: [] }
    const documented = op.responses[String(answer.status)]
    if (!documented) {
      if (
        Object.hasOwn(this.reading.tolerated?.statuses ?? {}, `${method} ${answer.template} ${answer.status}`)
      )
        return { errors: [], absent: [] }
      return {
        errors: [
          `${where}: status not documented (documented: ${Object.keys(op.responses).join(', ') || 'none'})`,
        ],
        absent: [],
      }
    }
    const errors = Object.keys(documented.headers ?? {})
      .filter((name) => answer.headers && !answer.headers.has(name))
      .map((name) => `${where}: documented header ${name} is missing`)
    const schema = documented.content?.['application/json']?.schema
    if (!schema) {
      const judged = !(this.reading.errorBodiesUndocumented && answer.status >= 400)
      if (judged && answer.body !== undefined && answer.body !== '') {
        errors.push(
          `${where}: documented without a body, answered ${JSON.stringify(answer.body).slice(0, 200)}`,
        )
      }
      return { errors, absent: [] }
    }
    const { prepared, absent } = this.prepared(`${method} ${answer.template} ${answer.status}`, schema)
    errors.push(
      ...this.explain(prepared, answer.body).map(
        (e) => `${where}: body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`,
      ),
    )
    return { errors, absent }
  }

  /**
   * Problems of a value against one of the file's component schemas, e.g. each server-sent event
   * of a stream against `CreateChatCompletionStreamResponse`; empty when it keeps the contract.
   */
  checkSchema(name: string, value: unknown): ContractResult {
    const schema = this.schemas[name]
    if (!schema) return { errors: [`schema ${name} is not in the vendor file`], absent: [] }
    const { prepared, absent } = this.prepared(`schema ${name}`, { $ref: `#/components/schemas/${name}` })
    const errors = this.explain(prepared, value).map(
      (e) => `${name}: ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`,
    )
    return { errors, absent }
  }

  private prepared(key: string, schema: Json) {
    const cached = this.preparations.get(key)
    if (cached) return cached
    const { schema: prepared, absent } = new Preparation(this.schemas, this.reading).run(schema)
    const result = { prepared, absent }
    this.preparations.set(key, result)
    return result
  }

  private compiled(schema: Json): ValidateFunction {
    const cached = this.validators.get(schema)
    if (cached) return cached
    const validate = this.ajv.compile(schema)
    this.validators.set(schema, validate)
    return validate
  }

  /**
   * Why a value fails a prepared schema. For a union the value matches no member of, Ajv reports
   * every member's errors, just before the union's own: those are replaced by the errors of the
   * member the value came closest to (the fewest), which say what is wrong.
   */
  private explain(schema: Json, value: unknown): ErrorObject[] {
    const validate = this.compiled(schema)
    if (validate(value)) return []
    const errors = [...(validate.errors ?? [])]
    for (let i = errors.length - 1; i >= 0; i--) {
      const union = errors[i]!
      if ((union.keyword !== 'anyOf' && union.keyword !== 'oneOf') || union.params.passingSchemas) continue
      // `verbose`: a union's error carries its members (`schema`) and the value it judged (`data`).
      const members: Json = union.schema
      if (!Array.isArray(members) || !members.every((m) => m && typeof m === 'object')) continue
      const tries = members.map((member: Json) => {
        const memberSchema = this.memberSchemas.get(member) ?? { ...member, definitions: schema.definitions }
        this.memberSchemas.set(member, memberSchema)
        const validateMember = this.compiled(memberSchema)
        const raw = validateMember(union.data) ? 0 : (validateMember.errors?.length ?? 0)
        const reduced = this.explain(memberSchema, union.data).map((e) => ({
          ...e,
          instancePath: union.instancePath + e.instancePath,
        }))
        return { raw, reduced }
      })
      const block = tries.reduce((sum, t) => sum + t.raw, 0)
      const start = i - block
      const below = (e: ErrorObject) =>
        e.instancePath === union.instancePath || e.instancePath.startsWith(`${union.instancePath}/`)
      if (start < 0 || !errors.slice(start, i).every(below)) continue
      const closest = tries.map((t) => t.reduced).sort((a, b) => a.length - b.length)[0] ?? []
      errors.splice(start, block + 1, ...closest)
      i = start
    }
    return errors
  }
}

/** Files of one split document repeat some paths and schemas; a repeat must say the same thing. */
function mergeOnce(into: Record<string, Json>, key: string, value: Json, where: string): void {
  if (key in into && JSON.stringify(into[key]) !== JSON.stringify(value))
    throw new Error(`${where} differs from an earlier file's`)
  into[key] = value
}

function refName(ref: string): string {
  return ref.trim().split('/').pop()!
}

/** OpenAPI annotations that JSON Schema validation does not use. */
const ANNOTATIONS = new Set([
  'example',
  'examples',
  'readOnly',
  'writeOnly',
  'xml',
  'externalDocs',
  'deprecated',
  'discriminator',
])
/**
 * Format names the vendor files use that are not JSON Schema's. `datetime` and `url` mean
 * `date-time` and `uri`; `string` says nothing beyond the type.
 */
const FORMAT_ALIASES: Record<string, string | undefined> = {
  datetime: 'date-time',
  url: 'uri',
  string: undefined,
  // OpenAI's Unix timestamps: the type (integer or number) says it all.
  unixtime: undefined,
}
/** Where a schema that is an `allOf` part is kept, open at its top (see Reading.closed). */
const OPEN_PART = '.allOf-part'

/**
 * One response schema in the OpenAPI 3.0 dialect made a JSON Schema (draft-07) with the component
 * schemas it refers to as `definitions`: annotations and `x-` keywords dropped, vendor format names
 * mapped, `nullable` made a `null` type (the files put it beside `type`, `enum`, `oneOf` and
 * `$ref`), repeated `enum` values dropped, and the Reading applied. A component the files name but do not define is an object,
 * the only thing known of it, and is reported as absent.
 */
class Preparation {
  private readonly definitions: Record<string, Json> = {}
  private readonly absent = new Set<string>()
  private readonly pending: Array<{ name: string; open: boolean }> = []

  constructor(
    private readonly components: Record<string, Json>,
    private readonly reading: Reading,
  ) {}

  run(schema: Json): { schema: Json; absent: string[] } {
    const root = this.prepare(schema, false)
    for (let next = this.pending.pop(); next; next = this.pending.pop()) {
      const target = this.components[next.name]
      if (target === undefined) this.absent.add(next.name)
      this.definitions[next.name + (next.open ? OPEN_PART : '')] =
        target === undefined ? { type: 'object' } : this.prepare(target, next.open)
    }
    return { schema: { ...root, definitions: this.definitions }, absent: [...this.absent].sort() }
  }

  private ref(ref: string, open: boolean): string {
    const name = refName(ref)
    const key = name + (open && this.reading.closed ? OPEN_PART : '')
    if (!(key in this.definitions)) {
      this.definitions[key] = {}
      this.pending.push({ name, open: key !== name })
    }
    return `#/definitions/${key}`
  }

  /** `open`: this schema is an `allOf` part, so it may not be closed at its top. */
  private prepare(node: Json, open: boolean): Json {
    if (Array.isArray(node)) return node.map((item) => this.prepare(item, false))
    if (!node || typeof node !== 'object') return node
    const out: Json = {}
    for (const [key, value] of Object.entries<Json>(node)) {
      if (ANNOTATIONS.has(key) || key.startsWith('x-') || key === 'nullable') continue
      if (key === '$ref') out.$ref = this.ref(value, open)
      else if (key === 'format') {
        const format = value in FORMAT_ALIASES ? FORMAT_ALIASES[value] : value
        if (format) out.format = format
      } else if (key === 'properties' || key === 'patternProperties') {
        out[key] = Object.fromEntries(
          Object.entries<Json>(value).map(([k, v]) => [k, this.prepare(v, false)]),
        )
      } else if (key === 'allOf') out.allOf = value.map((part: Json) => this.prepare(part, true))
      else if (key === 'oneOf' || key === 'anyOf')
        out[key === 'oneOf' && this.reading.oneOfAsAnyOf ? 'anyOf' : key] = this.union(value)
      else if (key === 'enum') out.enum = [...new Set(value)]
      else out[key] = this.prepare(value, false)
    }
    if (
      this.reading.closed &&
      !open &&
      out.properties &&
      out.additionalProperties === undefined &&
      !out.allOf
    )
      out.additionalProperties = false
    if (out.additionalProperties === false) this.tolerate(out)
    return node.nullable === true ? nullable(out) : out
  }

  /** JSON Schema wants a union's members listed; the file's empty union (no value fits) becomes one that admits nothing. */
  private union(members: Json[]): Json[] {
    return members.length === 0 ? [{ not: {} }] : this.prepare(members, false)
  }

  /** A closed object admits the properties the test tolerates, whatever their value. */
  private tolerate(object: Json): void {
    for (const name of Object.keys(this.reading.tolerated?.properties ?? {})) {
      object.properties ??= {}
      object.properties[name] ??= true
    }
  }
}

function nullable(schema: Json): Json {
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null]
  if (typeof schema.type === 'string' && !schema.anyOf && !schema.oneOf && !schema.allOf && !schema.$ref)
    return { ...schema, type: [schema.type, 'null'] }
  return { anyOf: [schema, { type: 'null' }] }
}

/**
 * Where a vendor file lacks an object's schema but shows the object in an example, the example is
 * the best account of its fields: every key the example has must be there, with the example's JSON
 * type or null (the example shows a set value; an unset one is null, never left out).
 */
export function shapeLike(value: Json, example: Json, where: string): string[] {
  const errors: string[] = []
  for (const [key, sample] of Object.entries<Json>(example)) {
    if (!(key in value))
      errors.push(`${where}.${key}: missing (the vendor example has ${JSON.stringify(sample)})`)
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
