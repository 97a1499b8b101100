import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  coerceValues,
  fieldsFromSchema,
  humanize,
  initialValues,
  resolveSchema,
  visibleFields,
  type FormField,
} from './schema-form.ts'

// The server describes tool input with zod's toJSONSchema, so the mapping is tested on its real output.
const createTicketInput = z.object({
  subject: z.string().min(1),
  description: z.string().min(1),
  priority: z.enum(['low', 'normal', 'high', 'urgent']).optional(),
  assignee: z.union([z.number().int(), z.string().email()]).optional(),
  tags: z.array(z.string()).optional(),
  notify: z.boolean(),
  archived: z.boolean().optional(),
  due_at: z.string().datetime().nullable().optional(),
  count: z.number().int().default(5),
  ratio: z.number().optional(),
  custom_fields: z.array(z.object({ id: z.number(), value: z.string() })).optional(),
  level: z.union([z.literal(1), z.literal(2)]).optional(),
  via: z.object({ channel: z.string() }).optional(),
  requesterEmail: z.string().email().describe('Who asked').optional(),
})
const schema = z.toJSONSchema(createTicketInput) as Record<string, unknown>
const fields = fieldsFromSchema(schema)
const byName = (name: string): FormField => {
  const f = fields.find((x) => x.name === name)
  if (!f) throw new Error(`no field ${name}`)
  return f
}

describe('fieldsFromSchema', () => {
  it('keeps declaration order and required flags', () => {
    expect(fields.map((f) => f.name)).toEqual(Object.keys(createTicketInput.shape))
    expect(byName('subject').required).toBe(true)
    expect(byName('priority').required).toBe(false)
  })

  it.each([
    ['subject', 'text'],
    ['description', 'textarea'],
    ['priority', 'enum'],
    ['assignee', 'text-or-number'],
    ['tags', 'string-list'],
    ['notify', 'boolean'],
    ['archived', 'enum'], // optional boolean: Yes / No / not set
    ['due_at', 'text'], // nullable string
    ['count', 'integer'],
    ['ratio', 'number'],
    ['custom_fields', 'json'],
    ['level', 'enum'],
    ['via', 'json'],
    ['requesterEmail', 'text'],
  ])('maps %s to %s', (name, kind) => {
    expect(byName(name).kind).toBe(kind)
  })

  it('gives long strings a multi-line box, by length or by name', () => {
    const f = fieldsFromSchema({
      type: 'object',
      properties: {
        subject: { type: 'string', maxLength: 255 },
        body: { type: 'string', maxLength: 65000 },
        notes: { type: 'string' },
        description: { type: 'string', maxLength: 40 },
        email: { type: 'string', format: 'email', maxLength: 5000 },
      },
    })
    expect(f.map((x) => x.kind)).toEqual(['text', 'textarea', 'textarea', 'text', 'text'])
  })

  it('labels from title or a humanized name, and keeps descriptions', () => {
    expect(byName('due_at').label).toBe('Due at')
    expect(byName('requesterEmail').label).toBe('Requester email')
    expect(byName('requesterEmail').description).toBe('Who asked')
    expect(byName('requesterEmail').inputMode).toBe('email')
    expect(
      fieldsFromSchema({ type: 'object', properties: { x: { type: 'string', title: 'Custom' } } })[0].label,
    ).toBe('Custom')
  })

  it('keeps enum value types in options', () => {
    expect(byName('priority').options?.map((o) => o.label)).toEqual(['low', 'normal', 'high', 'urgent'])
    expect(byName('level').options?.map((o) => o.value)).toEqual(['1', '2'])
    expect(byName('archived').options).toEqual([
      { label: 'Yes', value: 'true' },
      { label: 'No', value: 'false' },
    ])
  })

  it('shows an object example as the JSON to type', () => {
    const mapSchema = z.toJSONSchema(
      z.object({
        map: z
          .record(z.string(), z.string())
          .optional()
          .meta({ examples: [{ ticket_id: 'body.ticket.id' }] }),
      }),
    ) as Record<string, unknown>
    expect(fieldsFromSchema(mapSchema)[0].placeholder).toBe('{"ticket_id":"body.ticket.id"}')
  })

  it('marks writeOnly strings as secrets, typed into a password box', () => {
    const secretSchema = z.toJSONSchema(
      z.object({ token: z.string().optional().meta({ writeOnly: true }), name: z.string() }),
    ) as Record<string, unknown>
    expect(fieldsFromSchema(secretSchema).map((f) => [f.name, f.secret === true])).toEqual([
      ['token', true],
      ['name', false],
    ])
  })

  it('marks integer-only unions', () => {
    expect(byName('assignee').integerOnly).toBe(true)
  })

  it('follows local $refs', () => {
    const withRefs = {
      type: 'object',
      properties: { p: { $ref: '#/$defs/Priority', description: 'How urgent' } },
      $defs: { Priority: { type: 'string', enum: ['low', 'high'] } },
    }
    const [p] = fieldsFromSchema(withRefs)
    expect(p.kind).toBe('enum')
    expect(p.description).toBe('How urgent')
    expect(resolveSchema({ $ref: '#/$defs/Missing' }, withRefs)).toEqual({})
  })

  it('survives schemas that are not object schemas', () => {
    expect(fieldsFromSchema(undefined)).toEqual([])
    expect(fieldsFromSchema({ type: 'object' })).toEqual([])
    expect(fieldsFromSchema({ type: 'object', properties: { x: true } })[0].kind).toBe('json')
    // A self-referencing $ref does not loop forever.
    expect(
      fieldsFromSchema({
        type: 'object',
        properties: { x: { $ref: '#/$defs/A' } },
        $defs: { A: { $ref: '#/$defs/A' } },
      })[0].kind,
    ).toBe('json')
  })
})

describe('initialValues', () => {
  it('starts from defaults', () => {
    const values = initialValues(fields)
    expect(values.count).toBe('5')
    expect(values.notify).toBe(false)
    expect(values.subject).toBe('')
    expect(values.priority).toBe('')
  })

  it('renders complex defaults as JSON and lists as comma-separated', () => {
    const f = fieldsFromSchema({
      type: 'object',
      properties: {
        q: { type: 'object', default: { a: 1 } },
        t: { type: 'array', items: { type: 'string' }, default: ['a', 'b'] },
      },
    })
    expect(initialValues(f)).toEqual({ q: '{\n  "a": 1\n}', t: 'a, b' })
  })
})

describe('coerceValues', () => {
  const base = { ...initialValues(fields), subject: 'Printer on fire', description: 'Third floor' }

  it('types every kind of field', () => {
    const { input, errors } = coerceValues(fields, {
      ...base,
      priority: '"high"',
      assignee: '42',
      tags: ' vip,  billing ,,',
      notify: true,
      archived: 'false',
      count: '7',
      ratio: '0.5',
      custom_fields: '[{"id": 1, "value": "x"}]',
      level: '2',
    })
    expect(errors).toEqual({})
    expect(input).toEqual({
      subject: 'Printer on fire',
      description: 'Third floor',
      priority: 'high',
      assignee: 42,
      tags: ['vip', 'billing'],
      notify: true,
      archived: false,
      count: 7,
      ratio: 0.5,
      custom_fields: [{ id: 1, value: 'x' }],
      level: 2,
    })
  })

  it('leaves empty optional fields out but sends required ones for the server to judge', () => {
    const { input } = coerceValues(fields, { ...base, subject: '', count: '' })
    expect(input).toEqual({ subject: '', description: 'Third floor', notify: false })
  })

  it('keeps text-or-number values that are not numbers as text', () => {
    expect(coerceValues(fields, { ...base, assignee: 'agent@acme.test' }).input.assignee).toBe(
      'agent@acme.test',
    )
    expect(coerceValues(fields, { ...base, assignee: '1.5' }).input.assignee).toBe('1.5')
  })

  it.each([
    ['count', 'seven', 'Enter a number.'],
    ['count', '1.5', 'Enter a whole number.'],
    ['count', '0x10', 'Enter a number.'],
    ['count', 'Infinity', 'Enter a number.'],
    ['ratio', '1e999', 'Enter a number.'],
  ])('rejects %s = %j', (name, value, message) => {
    expect(coerceValues(fields, { ...base, [name]: value }).errors).toEqual({ [name]: message })
  })

  it('reports broken JSON on the field', () => {
    const { errors } = coerceValues(fields, { ...base, custom_fields: '[{' })
    expect(errors.custom_fields).toMatch(/^Not valid JSON/)
  })

  it('sends an empty list for a required list left empty', () => {
    const f = fieldsFromSchema(z.toJSONSchema(z.object({ ids: z.array(z.string()) })))
    expect(coerceValues(f, { ids: '  ' }).input).toEqual({ ids: [] })
  })
})

describe('humanize', () => {
  it.each([
    ['subject', 'Subject'],
    ['due_at', 'Due at'],
    ['externalId', 'External id'],
    ['board-id', 'Board id'],
    ['idList', 'List'],
    ['idLabels', 'Labels'],
    ['list_id', 'List'],
    ['label_ids', 'Labels'],
    ['ticket_id', 'Ticket'],
    ['due_complete', 'Due complete'],
    ['_id', 'Id'],
    ['desc', 'Description'],
    ['pos', 'Position'],
    ['id', 'Id'],
    ['identity', 'Identity'],
  ])('%s → %s', (name, label) => expect(humanize(name)).toBe(label))
})

describe('fields shown only while another field holds a value (shownWhen)', () => {
  const fields = fieldsFromSchema({
    type: 'object',
    properties: {
      auth: { type: 'string', enum: ['integration', 'api_key'], default: 'integration' },
      key: { type: 'string', writeOnly: true, shownWhen: { auth: 'api_key' } },
    },
  })

  it('hides the key while auth is the integration, shows it with api_key', () => {
    expect(visibleFields(fields, initialValues(fields)).map((f) => f.name)).toEqual(['auth'])
    expect(visibleFields(fields, { auth: '"api_key"', key: '' }).map((f) => f.name)).toEqual(['auth', 'key'])
  })

  it('does not send what was typed into a field that no longer applies', () => {
    expect(coerceValues(fields, { auth: '"integration"', key: 'typed before switching back' }).input).toEqual(
      { auth: 'integration' },
    )
    expect(coerceValues(fields, { auth: '"api_key"', key: 'k' }).input).toEqual({ auth: 'api_key', key: 'k' })
  })
})

describe('a select shows its choices in words where the values are codes (optionLabels)', () => {
  it("labels Trello API Call's auth choices as the catalogue serves them", async () => {
    const { platforms } = await import('../platforms/index.ts')
    const apiCall = platforms.find((p) => p.id === 'trello')!.tools.find((t) => t.id === 'trello.api_call')!
    const fields = fieldsFromSchema(
      z.toJSONSchema(apiCall.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>,
    )
    const auth = fields.find((f) => f.name === 'auth')!
    expect(auth.options).toEqual([
      { label: 'The connected account', value: '"integration"' },
      { label: 'A key and token given here', value: '"api_key"' },
    ])
    expect(
      coerceValues(fields, {
        ...initialValues(fields),
        auth: '"api_key"',
        key: 'k',
        token: 't',
        method: '"GET"',
        endpoint: '/1/members/me',
      }).input,
    ).toMatchObject({ auth: 'api_key' })
  })

  it('keeps the code as the label where no word is given', () => {
    const fields = fieldsFromSchema({
      type: 'object',
      properties: { mode: { type: 'string', enum: ['a', 'b'], optionLabels: { a: 'First' } } },
    })
    expect(fields[0]!.options).toEqual([
      { label: 'First', value: '"a"' },
      { label: 'b', value: '"b"' },
    ])
  })
})
