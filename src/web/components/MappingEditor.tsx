import { useMemo, useRef, useState } from 'react'
import { exampleTemplate } from '../../core/triggers/event-fields.ts'
import type { InputVariable } from '../agents-api.ts'
import { eventFields, flattenFields, insertAt, templateOf, type EventField } from '../template-text.ts'
import { FieldErrorText } from './FieldErrorText.tsx'
import { fieldAria } from './FieldShell.tsx'

interface Props {
  variables: readonly InputVariable[]
  mapping: Record<string, string>
  onChange: (mapping: Record<string, string>) => void
  eventSchema: unknown
  sample: unknown
  errors: Record<string, string[]>
}

/**
 * One row per input variable of the agent, each a template over the event; beside them the event's
 * fields, which insert `{{ card.name }}` into the box last in focus (at its cursor). Each box's
 * placeholder is a field of this trigger's event (issue 22 saw a Zendesk trigger suggest a Trello card).
 */
export function MappingEditor({ variables, mapping, onChange, eventSchema, sample, errors }: Props) {
  const fields = useMemo(() => flattenFields(eventFields(eventSchema, sample)), [eventSchema, sample])
  const [target, setTarget] = useState<string | null>(variables[0]?.name ?? null)
  const boxes = useRef<Record<string, HTMLInputElement | null>>({})
  const selection = useRef<Record<string, [number | null, number | null]>>({})

  const insert = (field: EventField) => {
    const name = target ?? variables[0]?.name
    if (!name) return
    const [start, end] = selection.current[name] ?? [null, null]
    const { text, caret } = insertAt(mapping[name] ?? '', start, end, templateOf(field.path))
    onChange({ ...mapping, [name]: text })
    selection.current[name] = [caret, caret]
    // Focus goes back to the box once React has rendered its new value. If the person has already
    // moved on (clicked or typed into another box before the next frame), focus stays where they put
    // it: taking it back would send their next keystrokes into the box they left.
    const clicked = document.activeElement
    requestAnimationFrame(() => {
      const now = document.activeElement
      if (now !== clicked && now !== document.body) return
      const box = boxes.current[name]
      box?.focus()
      box?.setSelectionRange(caret, caret)
    })
  }
  const remember = (name: string, el: HTMLInputElement) => {
    selection.current[name] = [el.selectionStart, el.selectionEnd]
  }

  if (variables.length === 0) {
    return (
      <p className="muted">
        This agent has no input variables, so there is nothing to map: each event starts a run with no inputs.
      </p>
    )
  }
  return (
    <div className="mapping">
      <div className="mapping-rows">
        {variables.map((v) => {
          const id = `mapping-${v.name}`
          return (
            <div
              key={v.name}
              className={target === v.name ? 'field mapping-row mapping-target' : 'field mapping-row'}
            >
              <label htmlFor={id}>
                <code>{v.name}</code>
                {v.required ? (
                  <span className="required" aria-hidden="true">
                    {' '}
                    *
                  </span>
                ) : (
                  <span className="optional"> (optional)</span>
                )}
                {v.description && <span className="muted mapping-description"> {v.description}</span>}
              </label>
              <input
                ref={(el) => {
                  boxes.current[v.name] = el
                }}
                type="text"
                {...fieldAria(id, errors[v.name])}
                name={`mapping.${v.name}`}
                className="mono"
                autoComplete="off"
                spellCheck={false}
                placeholder={exampleTemplate(isSchema(eventSchema) ? eventSchema : {}, v.name)}
                value={mapping[v.name] ?? ''}
                onFocus={(e) => {
                  setTarget(v.name)
                  remember(v.name, e.target)
                }}
                onSelect={(e) => remember(v.name, e.currentTarget)}
                onChange={(e) => {
                  remember(v.name, e.target)
                  onChange({ ...mapping, [v.name]: e.target.value })
                }}
              />
              <FieldErrorText id={`${id}-error`} messages={errors[v.name]} />
            </div>
          )
        })}
      </div>
      <div className="event-fields" aria-labelledby="event-fields-heading">
        <h4 id="event-fields-heading">The event's fields</h4>
        <p className="help">
          Click one to put it into {target ? <code>{target}</code> : 'the box in focus'}.
        </p>
        {fields.length === 0 && <p className="muted">This trigger describes no fields.</p>}
        <ul className="event-field-list">
          {fields.map(({ field, depth }) => (
            <li key={field.path.join('.')} style={{ paddingLeft: `${depth * 0.9}rem` }}>
              <button
                type="button"
                className="event-field"
                onClick={() => insert(field)}
                title={field.description ?? `Insert ${templateOf(field.path)}`}
                aria-label={`Insert ${field.path.join('.')}`}
              >
                <span className="event-field-name">{field.label}</span>
                {field.example !== undefined && <span className="event-field-example">{field.example}</span>}
              </button>
            </li>
          ))}
        </ul>
      </div>
    </div>
  )
}

const isSchema = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null
