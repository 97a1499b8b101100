// Maps a tool's input JSON Schema (2020-12, as produced by zod's toJSONSchema) to flat form fields,
// and turns the strings a form holds back into typed input. Kept free of React so it can be unit
// tested; components/SchemaForm.tsx renders the fields.

export type JsonSchema = Record<string, unknown>

export type FieldKind =
  | 'text'
  | 'textarea'
  | 'integer'
  | 'number'
  | 'boolean' // required boolean: a checkbox
  | 'enum' // a select; optional booleans are a Yes / No / not set select
  | 'string-list' // array of strings, typed comma-separated
  | 'text-or-number' // e.g. an assignee that is a user id or an email
  | 'json' // anything else: typed as JSON

export interface FieldOption {
  label: string
  /** JSON text of the option's value, so numbers and booleans survive the round trip. */
  value: string
}

export interface FormField {
  name: string
  label: string
  description?: string
  required: boolean
  kind: FieldKind
  options?: FieldOption[]
  placeholder?: string
  /** text-or-number: numbers must be integers. */
  integerOnly?: boolean
  /** Hint for the on-screen keyboard, from `format` (email, uri). */
  inputMode?: 'email' | 'url' | 'numeric' | 'decimal'
  default?: unknown
  /** A secret (`writeOnly` in the schema): typed into a password box. */
  secret?: boolean
  /**
   * Shown only while other fields hold these values (`shownWhen` in the schema), such as a pasted
   * key and token only while auth is "api_key": a field that cannot apply is not offered.
   */
  shownWhen?: Record<string, unknown>
}

export type FormValue = string | boolean
export type FormValues = Record<string, FormValue>

const MAX_REF_DEPTH = 16
/** Strings allowed to be at least this long get a multi-line box (a 255-character subject does not). */
const TEXTAREA_MIN_LENGTH = 1000
const LONG_TEXT_NAMES = new Set([
  'description',
  'body',
  'comment',
  'content',
  'text',
  'message',
  'html_body',
  'desc',
  'notes',
])

const isRecord = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v)

function typesOf(s: JsonSchema): string[] {
  const t = s.type
  if (typeof t === 'string') return [t]
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string')
  return []
}

/** Follows local `$ref`s (`#/$defs/…`) and single-member `allOf`s; sibling keywords win. */
export function resolveSchema(schema: unknown, root: JsonSchema, depth = 0): JsonSchema {
  if (!isRecord(schema)) return {}
  if (depth > MAX_REF_DEPTH) return {}
  const { $ref, allOf, ...rest } = schema
  if (typeof $ref === 'string' && $ref.startsWith('#')) {
    const target = $ref
      .slice(1)
      .split('/')
      .filter(Boolean)
      .map((seg) => decodeURIComponent(seg.replace(/~1/g, '/').replace(/~0/g, '~')))
      .reduce<unknown>((node, seg) => (isRecord(node) ? node[seg] : undefined), root)
    return { ...resolveSchema(target, root, depth + 1), ...rest }
  }
  if (Array.isArray(allOf) && allOf.length === 1)
    return { ...resolveSchema(allOf[0], root, depth + 1), ...rest }
  return schema
}

/** Removes `null` from a schema's alternatives: a nullable string is edited as a string. */
function withoutNull(schema: JsonSchema, root: JsonSchema): JsonSchema {
  const types = typesOf(schema)
  if (types.length > 1 && types.includes('null')) {
    const rest = types.filter((t) => t !== 'null')
    return { ...schema, type: rest.length === 1 ? rest[0] : rest }
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const alts = schema[key]
    if (!Array.isArray(alts)) continue
    const members = alts
      .map((a) => resolveSchema(a, root))
      .filter((a) => !(typesOf(a).length === 1 && typesOf(a)[0] === 'null'))
    if (members.length === alts.length) continue
    const { [key]: _dropped, ...rest } = schema
    if (members.length === 1) return { ...withoutNull(members[0], root), ...rest }
    return { ...rest, [key]: members }
  }
  return schema
}

/** Abbreviations in platforms' field names, spelled out for people. */
const SPELLED_OUT: Record<string, string> = { desc: 'description', pos: 'position' }

/**
 * A field name as a label in words: `due_at` → "Due at". An id field reads as what it names
 * (`list_id` → "List", `label_ids` → "Labels", and so Trello's own `idList` and `idLabels`), and
 * `desc`, `pos` are spelled out.
 */
export function humanize(name: string): string {
  const words = name
    .replace(/^id(?=[A-Z])/, '')
    .replace(/(?<=[a-z0-9])_ids$/, 's')
    .replace(/(?<=[a-z0-9])_id$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .trim()
    .toLowerCase()
    .split(' ')
    .map((word) => SPELLED_OUT[word] ?? word)
    .join(' ')
  return words ? words[0].toUpperCase() + words.slice(1) : name
}

function optionLabel(v: unknown): string {
  if (v === true) return 'Yes'
  if (v === false) return 'No'
  if (v === null) return 'None'
  return typeof v === 'string' ? v : JSON.stringify(v)
}

function enumValues(s: JsonSchema): unknown[] | undefined {
  if (Array.isArray(s.enum)) return s.enum
  if ('const' in s) return [s.const]
  return undefined
}

const isPrimitiveType = (t: string) => t === 'string' || t === 'integer' || t === 'number' || t === 'boolean'

function classify(
  s: JsonSchema,
  name: string,
  required: boolean,
  root: JsonSchema,
): Pick<FormField, 'kind' | 'options' | 'integerOnly' | 'inputMode' | 'placeholder'> {
  const values = enumValues(s)
  if (values)
    return { kind: 'enum', options: values.map((v) => ({ label: optionLabel(v), value: JSON.stringify(v) })) }

  const alts = (Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined)?.map((a) =>
    resolveSchema(a, root),
  )
  if (alts && alts.length > 0) {
    // A union of constants (zod literals) is a select.
    const constants = alts.map(enumValues)
    if (constants.every((c) => c !== undefined)) {
      const all = constants.flat()
      return { kind: 'enum', options: all.map((v) => ({ label: optionLabel(v), value: JSON.stringify(v) })) }
    }
    const altTypes = alts.map((a) => typesOf(a))
    if (altTypes.every((t) => t.length === 1 && isPrimitiveType(t[0]))) {
      const flat = altTypes.map((t) => t[0])
      if (flat.every((t) => t === 'string')) return { kind: 'text' }
      if (flat.includes('string') && flat.some((t) => t === 'integer' || t === 'number')) {
        return { kind: 'text-or-number', integerOnly: !flat.includes('number') }
      }
    }
    return { kind: 'json' }
  }

  const types = typesOf(s)
  if (types.length !== 1) return { kind: 'json' }
  switch (types[0]) {
    case 'string': {
      const format = typeof s.format === 'string' ? s.format : undefined
      const inputMode =
        format === 'email' ? 'email' : format === 'uri' || format === 'url' ? 'url' : undefined
      const maxLength = typeof s.maxLength === 'number' ? s.maxLength : Infinity
      const long =
        (LONG_TEXT_NAMES.has(name.toLowerCase()) && maxLength > 80) ||
        (maxLength !== Infinity && maxLength >= TEXTAREA_MIN_LENGTH)
      return { kind: long && !format ? 'textarea' : 'text', ...(inputMode ? { inputMode } : {}) }
    }
    case 'integer':
      return { kind: 'integer', inputMode: 'numeric' }
    case 'number':
      return { kind: 'number', inputMode: 'decimal' }
    case 'boolean':
      return required
        ? { kind: 'boolean' }
        : {
            kind: 'enum',
            options: [true, false].map((v) => ({ label: optionLabel(v), value: JSON.stringify(v) })),
          }
    case 'array': {
      const items = withoutNull(resolveSchema(s.items, root), root)
      const itemValues = enumValues(items)
      const stringItems = itemValues
        ? itemValues.every((v) => typeof v === 'string')
        : typesOf(items).length === 1 && typesOf(items)[0] === 'string'
      return stringItems
        ? { kind: 'string-list', placeholder: 'Comma-separated, e.g. first, second' }
        : { kind: 'json', placeholder: '[ … ]' }
    }
    case 'object':
      return { kind: 'json', placeholder: '{ … }' }
    default:
      return { kind: 'json' }
  }
}

function examplePlaceholder(s: JsonSchema): string | undefined {
  const examples = Array.isArray(s.examples) ? s.examples : 'example' in s ? [s.example] : []
  const first = examples[0]
  if (typeof first === 'string' || typeof first === 'number') return String(first)
  // An object example (the API Call's map) is shown as the JSON to type.
  if (first !== null && typeof first === 'object') return JSON.stringify(first)
  return undefined
}

/** One form field per top-level property of an object schema, in declaration order. */
export function fieldsFromSchema(schema: unknown): FormField[] {
  if (!isRecord(schema)) return []
  const root = schema
  const obj = resolveSchema(schema, root)
  const properties = isRecord(obj.properties) ? obj.properties : {}
  const required = new Set(
    Array.isArray(obj.required) ? obj.required.filter((r): r is string => typeof r === 'string') : [],
  )
  return Object.entries(properties).map(([name, raw]) => {
    const s = withoutNull(resolveSchema(raw, root), root)
    const isRequired = required.has(name)
    const field: FormField = {
      name,
      label: typeof s.title === 'string' && s.title.trim() ? s.title : humanize(name),
      required: isRequired,
      ...classify(s, name, isRequired, root),
    }
    if (typeof s.description === 'string' && s.description.trim()) field.description = s.description
    const example = examplePlaceholder(s)
    if (example !== undefined)
      field.placeholder = field.kind === 'json' && !/^[{[]/.test(example) ? JSON.stringify(example) : example
    if ('default' in s) field.default = s.default
    if (s.writeOnly === true) field.secret = true
    if (isRecord(s.shownWhen)) field.shownWhen = s.shownWhen
    // A select's choices in words (`optionLabels` in the schema), where the values are codes.
    if (field.options && isRecord(s.optionLabels)) {
      const labels = s.optionLabels
      field.options = field.options.map((o) => {
        const word = labels[JSON.parse(o.value) as string]
        return typeof word === 'string' ? { ...o, label: word } : o
      })
    }
    return field
  })
}

/** The fields that apply to the values as they are (see FormField.shownWhen); an enum's form value is its JSON. */
export function visibleFields(fields: readonly FormField[], values: FormValues): FormField[] {
  return fields.filter(
    (f) =>
      !f.shownWhen ||
      Object.entries(f.shownWhen).every(
        ([name, wanted]) => values[name] === JSON.stringify(wanted) || values[name] === wanted,
      ),
  )
}

/** The form's starting values: schema defaults where given, otherwise empty. */
export function initialValues(fields: readonly FormField[]): FormValues {
  const values: FormValues = {}
  for (const f of fields) {
    const d = f.default
    switch (f.kind) {
      case 'boolean':
        values[f.name] = d === true
        break
      case 'enum': {
        const json = d === undefined ? '' : JSON.stringify(d)
        values[f.name] = f.options?.some((o) => o.value === json) ? json : ''
        break
      }
      case 'string-list':
        values[f.name] = Array.isArray(d) ? d.map(String).join(', ') : ''
        break
      case 'json':
        values[f.name] = d === undefined ? '' : JSON.stringify(d, null, 2)
        break
      default:
        values[f.name] = d === undefined || d === null ? '' : String(d)
    }
  }
  return values
}

const NUMBER_RE = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/

export interface CoerceResult {
  input: Record<string, unknown>
  /** Field name → message, for values that cannot be sent as typed. */
  errors: Record<string, string>
}

/**
 * Turns form values into the tool's input. Empty optional fields are left out. Values that cannot
 * be read (a word in a number field, broken JSON) are reported; everything else, including a
 * required field left empty, goes to the server, whose validation names the field.
 */
export function coerceValues(fields: readonly FormField[], values: FormValues): CoerceResult {
  const input: Record<string, unknown> = {}
  const errors: Record<string, string> = {}
  // A hidden field's leftover text is not sent: it does not apply to the other values.
  for (const f of visibleFields(fields, values)) {
    const raw = values[f.name]
    if (f.kind === 'boolean') {
      input[f.name] = raw === true
      continue
    }
    const text = typeof raw === 'string' ? raw : raw === true ? 'true' : ''
    const trimmed = text.trim()
    if (trimmed === '') {
      if (!f.required) continue
      if (f.kind === 'text' || f.kind === 'textarea') input[f.name] = text
      else if (f.kind === 'string-list') input[f.name] = []
      continue
    }
    switch (f.kind) {
      case 'text':
      case 'textarea':
        input[f.name] = text
        break
      case 'integer':
      case 'number': {
        const n = NUMBER_RE.test(trimmed) ? Number(trimmed) : NaN
        if (!Number.isFinite(n)) errors[f.name] = 'Enter a number.'
        else if (f.kind === 'integer' && !Number.isInteger(n)) errors[f.name] = 'Enter a whole number.'
        else input[f.name] = n
        break
      }
      case 'text-or-number': {
        const n = NUMBER_RE.test(trimmed) ? Number(trimmed) : NaN
        input[f.name] = Number.isFinite(n) && (!f.integerOnly || Number.isInteger(n)) ? n : trimmed
        break
      }
      case 'enum': {
        try {
          input[f.name] = JSON.parse(trimmed)
        } catch {
          input[f.name] = trimmed
        }
        break
      }
      case 'string-list':
        input[f.name] = text
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '')
        break
      case 'json':
        try {
          input[f.name] = JSON.parse(trimmed)
        } catch (err) {
          errors[f.name] = `Not valid JSON: ${err instanceof Error ? err.message : String(err)}`
        }
        break
    }
  }
  return { input, errors }
}
