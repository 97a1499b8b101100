import { describe, expect, it } from 'vitest'
import { errorsUnder, normalizePath, routeAgentErrors, type EditorShape } from './agent-errors.ts'

const shape: EditorShape = {
  kind: 'steps',
  inputCount: 2,
  stepFields: [['subject', 'body'], null],
  outputNames: ['card'],
}

describe('routeAgentErrors', () => {
  it('normalises bracketed and dotted paths', () => {
    expect(normalizePath('steps[0].input.subject')).toBe('steps.0.input.subject')
    expect(normalizePath('output["card"]')).toBe('output.card')
    expect(normalizePath('/steps/1/key')).toBe('steps.1.key')
  })

  it('puts each error next to the field it names', () => {
    const { at, other } = routeAgentErrors(
      [
        { field: 'name', message: 'Required' },
        { field: 'inputs[1].name', message: 'Not an identifier' },
        { field: 'steps[0].input.subject', message: 'Too long' },
        { field: 'steps[0].input.subject.0', message: 'Nested' },
        { field: 'steps[0].integration', message: 'Unknown integration' },
        { field: 'steps[0].input.nope', message: 'Unrecognized key' },
        { field: 'steps[1].input.subject', message: 'In JSON mode' },
        { field: 'steps[1]', message: 'Duplicate key' },
        { field: 'output.card', message: 'Bad template' },
        { field: 'output.gone', message: 'Unknown' },
        { field: 'nonsense', message: 'Where?' },
        { field: 'steps[5].key', message: 'Out of range' },
      ],
      shape,
    )
    expect(at).toEqual({
      name: ['Required'],
      'inputs.1.name': ['Not an identifier'],
      'steps.0.input.subject': ['Too long', 'Nested'],
      'steps.0.integration': ['Unknown integration'],
      'steps.0.input': ['nope: Unrecognized key'],
      'steps.1.input': ['subject: In JSON mode'],
      'steps.1': ['Duplicate key'],
      'output.card': ['Bad template'],
      output: ['gone: Unknown'],
      steps: ['5.key: Out of range'],
    })
    expect(other).toEqual([{ field: 'nonsense', message: 'Where?' }])
    expect(errorsUnder(at, 'steps.0')).toEqual({
      'input.subject': ['Too long', 'Nested'],
      integration: ['Unknown integration'],
      input: ['nope: Unrecognized key'],
    })
  })

  it('puts the external URL’s errors under its field, and step errors nowhere for an external agent', () => {
    const { at, other } = routeAgentErrors(
      [
        { field: 'external.url', message: 'Must be https' },
        { field: 'steps', message: 'x' },
      ],
      { ...shape, kind: 'external' },
    )
    expect(at).toEqual({ url: ['Must be https'] })
    expect(other).toEqual([{ field: 'steps', message: 'x' }])
  })
})
