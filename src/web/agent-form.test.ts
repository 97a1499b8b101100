import { describe, expect, it } from 'vitest'
import type { Agent } from './agents-api.ts'
import {
  agentInputOf,
  emptyAgentForm,
  emptyStep,
  fieldsOfInput,
  formOfAgent,
  moved,
  nextStepKey,
  schemaOfVariables,
  templatedFields,
  textOfValue,
  valueOfText,
  withInputMode,
  type AgentForm,
} from './agent-form.ts'
import { fieldsFromSchema } from './schema-form.ts'

const cardSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    list_id: { type: 'string' },
    pos: { anyOf: [{ type: 'number' }, { enum: ['top', 'bottom'] }] },
    due: { type: 'integer' },
    closed: { type: 'boolean' },
    label_ids: { type: 'array', items: { type: 'string' } },
    extra: { type: 'object' },
    color: { enum: ['red', 'green'] },
  },
  required: ['name', 'list_id', 'closed'],
}
const fields = fieldsFromSchema(cardSchema)
const fieldsOf = (id: string) => (id === 'trello.create_card' ? fields : undefined)

describe('valueOfText / textOfValue', () => {
  it('keeps text and templates as text, reads numbers, lists, yes/no and JSON', () => {
    expect(valueOfText('text', ' {{ inputs.subject }} ')).toEqual({ value: ' {{ inputs.subject }} ' })
    expect(valueOfText('integer', '{{ inputs.n }}')).toEqual({ value: '{{ inputs.n }}' })
    expect(valueOfText('integer', '42')).toEqual({ value: 42 })
    expect(valueOfText('integer', 'soon')).toEqual({ value: 'soon' })
    expect(valueOfText('string-list', 'a, b,,c')).toEqual({ value: ['a', 'b', 'c'] })
    expect(valueOfText('boolean', 'true')).toEqual({ value: true })
    expect(valueOfText('enum', 'red')).toEqual({ value: 'red' })
    expect(valueOfText('enum', 'false')).toEqual({ value: false })
    expect(valueOfText('json', '{"a":1}')).toEqual({ value: { a: 1 } })
    expect(valueOfText('json', '{a')).toHaveProperty('error')
    expect(valueOfText('text', '   ')).toEqual({})
  })

  it('shows stored values as the text that reads back to them', () => {
    expect(textOfValue('string-list', ['a', 'b'])).toBe('a, b')
    expect(textOfValue('integer', 3)).toBe('3')
    expect(textOfValue('json', { a: 1 })).toBe('{"a":1}')
    expect(textOfValue('text', null)).toBe('')
    for (const [kind, value] of [
      ['string-list', ['x', 'y']],
      ['integer', 7],
      ['json', { a: [1] }],
      ['boolean', false],
    ] as const) {
      expect(valueOfText(kind, textOfValue(kind, value)).value).toEqual(value)
    }
  })
})

describe('form ↔ definition', () => {
  const form = (): AgentForm => ({
    ...emptyAgentForm(),
    name: ' Triage ',
    inputs: [{ id: 'r1', name: 'subject', type: 'string', required: true, description: '' }],
    steps: [
      {
        ...emptyStep('make'),
        tool: 'trello.create_card',
        integration: 'int_1',
        fields: {
          name: '{{ inputs.subject }}',
          list_id: 'list_1',
          due: '5',
          closed: 'false',
          label_ids: 'l1, l2',
        },
      },
    ],
    output: [
      { id: 'o1', name: 'card', template: '{{ steps.make.output.id }}' },
      { id: 'o2', name: '', template: '' },
    ],
  })

  it('builds the AgentInput the REST API takes', () => {
    const { input, errors } = agentInputOf(form(), fieldsOf)
    expect(errors).toEqual({})
    expect(input).toEqual({
      name: 'Triage',
      inputs: [{ name: 'subject', type: 'string', required: true }],
      kind: 'steps',
      steps: [
        {
          key: 'make',
          tool: 'trello.create_card',
          integration: 'int_1',
          on_failure: 'stop',
          input: {
            name: '{{ inputs.subject }}',
            list_id: 'list_1',
            due: 5,
            closed: false,
            label_ids: ['l1', 'l2'],
          },
        },
      ],
      output: { card: '{{ steps.make.output.id }}' },
    })
  })

  it('names the step input fields it cannot read, by the server’s paths', () => {
    const f = form()
    f.steps[0].fields.extra = '{ nope'
    expect(agentInputOf(f, fieldsOf).errors).toEqual({ 'steps.0.input.extra': expect.stringMatching(/JSON/) })
    f.steps[0] = { ...f.steps[0], inputMode: 'json', json: '[1]' }
    expect(agentInputOf(f, fieldsOf).errors).toEqual({ 'steps.0.input': expect.stringMatching(/object/) })
  })

  it('sends only the URL for an external agent', () => {
    const { input } = agentInputOf({ ...form(), kind: 'external', url: ' https://x.test/hook ' }, fieldsOf)
    expect(input.external).toEqual({ url: 'https://x.test/hook' })
    expect(input.steps).toBeUndefined()
  })

  it('opens a stored agent as the same form, JSON where the form has no field', () => {
    const agent: Agent = {
      id: 'a1',
      version: 3,
      created_at: '',
      updated_at: '',
      name: 'Triage',
      description: '',
      inputs: [{ name: 'subject', type: 'string', required: true, description: '' }],
      kind: 'steps',
      steps: [
        {
          key: 'make',
          tool: 'trello.create_card',
          integration: 'int_1',
          input: { name: '{{ inputs.subject }}', label_ids: ['a'], due: 4 },
          on_failure: 'continue',
          condition: 'true',
          tool_title: 'Create card',
          integration_name: 'Ada',
        },
        {
          key: 'odd',
          tool: 'trello.create_card',
          integration: 'int_1',
          input: { unknown: 1 },
          on_failure: 'stop',
          tool_title: 'Create card',
          integration_name: 'Ada',
        },
        {
          key: 'gone',
          tool: 'nope.tool',
          integration: 'int_1',
          input: { a: 1 },
          on_failure: 'stop',
          tool_title: 'nope.tool',
          integration_name: null,
        },
      ],
      output: { card: '{{ steps.make.output.id }}' },
    }
    const f = formOfAgent(agent, fieldsOf)
    expect(f.steps.map((s) => s.inputMode)).toEqual(['form', 'json', 'json'])
    expect(f.steps[0].fields).toEqual({ name: '{{ inputs.subject }}', label_ids: 'a', due: '4' })
    const back = agentInputOf(f, fieldsOf).input
    // The answer's tool titles and integration names are read-only: the form sends the steps without them.
    expect(back.steps).toEqual(agent.steps.map(({ tool_title: _t, integration_name: _n, ...step }) => step))
    expect(back.output).toEqual(agent.output)
  })

  it('switches a step between form and JSON, keeping what was typed', () => {
    const step = { ...emptyStep('s'), tool: 'trello.create_card', fields: { name: 'Hi', due: '3' } }
    const json = withInputMode(step, 'json', fields).step
    expect(JSON.parse(json.json)).toEqual({ name: 'Hi', due: 3 })
    const back = withInputMode({ ...json, json: '{"name":"Yo","label_ids":["a","b"]}' }, 'form', fields)
    expect(back.step.fields).toEqual({ name: 'Yo', label_ids: 'a, b' })
    const refused = withInputMode({ ...json, json: '{"other":1}' }, 'form', fields)
    expect(refused.error).toMatch(/JSON/)
    expect(refused.step.inputMode).toBe('json')
    expect(fieldsOfInput({ name: 'x' }, fields)).toEqual({ name: 'x' })
  })
})

describe('editor helpers', () => {
  it('moves steps up and down within bounds', () => {
    expect(moved(['a', 'b', 'c'], 0, 1)).toEqual(['b', 'a', 'c'])
    expect(moved(['a', 'b', 'c'], 2, -1)).toEqual(['a', 'c', 'b'])
    expect(moved(['a', 'b'], 0, -1)).toEqual(['a', 'b'])
  })

  it('offers a free step key', () => {
    expect(nextStepKey([])).toBe('step1')
    expect(nextStepKey([{ ...emptyStep('step2') }])).toBe('step3')
  })

  it('shows every tool field as text that says what it takes', () => {
    const shown = templatedFields(fields)
    expect(shown.find((f) => f.name === 'due')).toMatchObject({ kind: 'text', description: 'A number.' })
    expect(shown.find((f) => f.name === 'closed')).toMatchObject({
      kind: 'text',
      description: 'true or false.',
    })
    expect(shown.find((f) => f.name === 'color')).toMatchObject({
      kind: 'text',
      description: 'One of: red, green.',
    })
    expect(shown.find((f) => f.name === 'label_ids')?.kind).toBe('string-list')
    expect(shown.find((f) => f.name === 'extra')?.kind).toBe('json')
  })

  it('makes a form schema of the input variables', () => {
    const f = fieldsFromSchema(
      schemaOfVariables([
        { name: 'subject', type: 'string', required: true },
        { name: 'tags', type: 'array', required: false },
        { name: 'urgent', type: 'boolean', required: true },
      ]),
    )
    expect(f.map((x) => [x.name, x.kind, x.required])).toEqual([
      ['subject', 'text', true],
      ['tags', 'json', false],
      ['urgent', 'boolean', true],
    ])
  })
})
