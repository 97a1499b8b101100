import { describe, expect, it } from 'vitest'
import {
  eventFields,
  expressionOf,
  flattenFields,
  insertAt,
  insertChoices,
  templateOf,
} from './template-text.ts'

describe('templates', () => {
  it('names a field as a JSONata path, quoting names that are not identifiers', () => {
    expect(templateOf(['card', 'name'])).toBe('{{ card.name }}')
    expect(expressionOf(['card', 'due date', 'x-y'])).toBe('card.`due date`.`x-y`')
  })

  it('inserts at the cursor, replacing a selection', () => {
    expect(insertAt('Hello ', 6, 6, '{{ card.name }}')).toEqual({ text: 'Hello {{ card.name }}', caret: 21 })
    expect(insertAt('Hi NAME!', 3, 7, '{{ x }}')).toEqual({ text: 'Hi {{ x }}!', caret: 10 })
    expect(insertAt('abc', null, null, 'Z')).toEqual({ text: 'abcZ', caret: 4 })
    expect(insertAt('abc', 99, 1, 'Z')).toEqual({ text: 'abcZ', caret: 4 })
  })
})

describe('eventFields', () => {
  const schema = {
    type: 'object',
    properties: {
      card: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string', description: 'The card title' },
          labels: { type: 'array', items: { $ref: '#/$defs/label' } },
        },
      },
      list: { anyOf: [{ type: 'object', properties: { name: { type: 'string' } } }, { type: 'null' }] },
    },
    $defs: { label: { type: 'object', properties: { name: { type: 'string' } } } },
  }
  const sample = {
    card: { id: 'c1', name: 'Fix the login page', labels: [{ name: 'bug' }] },
    list: { name: 'To do' },
  }

  it('lists the schema’s fields with the sample’s values', () => {
    const flat = flattenFields(eventFields(schema, sample)).map(({ field, depth }) => [
      field.path.join('.'),
      depth,
      field.type,
      field.example ?? null,
    ])
    expect(flat).toEqual([
      ['card', 0, 'object', null],
      ['card.id', 1, 'string', '“c1”'],
      ['card.name', 1, 'string', '“Fix the login page”'],
      ['card.labels', 1, 'array', null],
      ['card.labels.name', 2, 'string', '“bug”'],
      ['list', 0, 'object', null],
      ['list.name', 1, 'string', '“To do”'],
    ])
    expect(eventFields(schema, sample)[0].children[1].description).toBe('The card title')
  })

  it('falls back to the sample when the schema names no properties', () => {
    const flat = flattenFields(eventFields({}, { ticket: { id: 7, subject: 'x'.repeat(80) } })).map(
      ({ field }) => [field.path.join('.'), field.example ?? null],
    )
    expect(flat[0]).toEqual(['ticket', null])
    expect(flat[1]).toEqual(['ticket.id', '7'])
    expect(flat[2][1]).toMatch(/…$/)
  })
})

describe('insertChoices', () => {
  it('offers the inputs, then each earlier step’s output and its fields', () => {
    const choices = insertChoices(
      ['subject', 'due date'],
      [
        {
          key: 'find',
          outputSchema: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } } },
        },
        { key: '' },
      ],
    )
    expect(choices.map((c) => c.template)).toEqual([
      '{{ inputs.subject }}',
      '{{ inputs.`due date` }}',
      '{{ steps.find.output }}',
      '{{ steps.find.output.id }}',
      '{{ steps.find.output.name }}',
    ])
    expect(choices[2].label).toBe('steps.find.output')
  })
})
