import { VARIABLE_TYPES, type VariableType } from '../agents-api.ts'
import { emptyOutput, emptyVariable, type OutputRow, type VariableRow } from '../agent-form.ts'
import { FieldErrorText } from './FieldErrorText.tsx'
import { fieldAria } from './FieldShell.tsx'
import { ShownOnce } from './ShownOnce.tsx'

const TYPE_LABELS: Record<VariableType, string> = {
  string: 'Text',
  number: 'Number',
  boolean: 'Yes / no',
  object: 'Object (JSON)',
  array: 'List (JSON)',
}

/** The agent's input variables: one row each, added and removed freely. */
export function VariablesEditor({
  rows,
  errors,
  onChange,
}: {
  rows: VariableRow[]
  errors: Record<string, string[]>
  onChange: (rows: VariableRow[]) => void
}) {
  const set = (i: number, patch: Partial<VariableRow>) =>
    onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)))
  return (
    <fieldset className="rows-editor">
      <legend>Input variables</legend>
      <p className="help">
        What a run starts with. Steps read them as {'{{ inputs.<name> }}'}; a trigger maps its event onto
        them.
      </p>
      <FieldErrorText id="agent-inputs-error" messages={errors['inputs']} />
      {rows.length > 0 && (
        <ul className="rows">
          {rows.map((r, i) => {
            const id = `agent-inputs-${i}`
            const e = (part: string) => errors[`inputs.${i}.${part}`]
            return (
              <li key={r.id} className="row-card variable-row" aria-label={`Input variable ${i + 1}`}>
                <div className="field">
                  <label htmlFor={`${id}-name`}>Name</label>
                  <input
                    type="text"
                    {...fieldAria(`${id}-name`, e('name'))}
                    name="variable-name"
                    className="mono"
                    autoComplete="off"
                    spellCheck={false}
                    value={r.name}
                    placeholder="subject"
                    onChange={(ev) => set(i, { name: ev.target.value })}
                  />
                  <FieldErrorText id={`${id}-name-error`} messages={e('name')} />
                </div>
                <div className="field">
                  <label htmlFor={`${id}-type`}>Type</label>
                  <select
                    {...fieldAria(`${id}-type`, e('type'))}
                    name="variable-type"
                    value={r.type}
                    onChange={(ev) => set(i, { type: ev.target.value as VariableType })}
                  >
                    {VARIABLE_TYPES.map((t) => (
                      <option key={t} value={t}>
                        {TYPE_LABELS[t]}
                      </option>
                    ))}
                  </select>
                  <FieldErrorText id={`${id}-type-error`} messages={e('type')} />
                </div>
                <div className="field field-checkbox variable-required">
                  <input
                    type="checkbox"
                    id={`${id}-required`}
                    name="variable-required"
                    checked={r.required}
                    onChange={(ev) => set(i, { required: ev.target.checked })}
                  />
                  <label htmlFor={`${id}-required`}>Required</label>
                </div>
                <div className="field variable-description">
                  <label htmlFor={`${id}-description`}>
                    Description<span className="optional"> (optional)</span>
                  </label>
                  <input
                    type="text"
                    {...fieldAria(`${id}-description`, e('description'))}
                    name="variable-description"
                    value={r.description}
                    onChange={(ev) => set(i, { description: ev.target.value })}
                  />
                  <FieldErrorText id={`${id}-description-error`} messages={e('description')} />
                </div>
                <div className="row-remove">
                  <button
                    type="button"
                    className="link-button"
                    onClick={() => onChange(rows.filter((_, j) => j !== i))}
                    aria-label={`Remove input variable ${r.name || i + 1}`}
                  >
                    Remove
                  </button>
                </div>
                <FieldErrorText id={`${id}-error`} messages={errors[`inputs.${i}`]} />
              </li>
            )
          })}
        </ul>
      )}
      <button type="button" onClick={() => onChange([...rows, emptyVariable()])}>
        Add input variable
      </button>
    </fieldset>
  )
}

/** The run's result: names, each with the template that fills it. */
export function OutputEditor({
  rows,
  errors,
  onChange,
}: {
  rows: OutputRow[]
  errors: Record<string, string[]>
  onChange: (rows: OutputRow[]) => void
}) {
  const set = (i: number, patch: Partial<OutputRow>) =>
    onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)))
  return (
    <fieldset className="rows-editor">
      <legend>
        Result<span className="optional"> (optional)</span>
      </legend>
      <p className="help">
        What the run returns when it succeeds: a name for each value, and the template that fills it, e.g.{' '}
        {'{{ steps.create.output.url }}'}.
      </p>
      <FieldErrorText id="agent-output-error" messages={errors['output']} />
      {rows.length > 0 && (
        <ul className="rows">
          {rows.map((r, i) => {
            const id = `agent-output-${i}`
            const messages = errors[`output.${r.name.trim()}`]
            return (
              <li key={r.id} className="row-card output-row" aria-label={`Result value ${i + 1}`}>
                <div className="field">
                  <label htmlFor={`${id}-name`}>Name</label>
                  <input
                    type="text"
                    id={`${id}-name`}
                    name="output-name"
                    className="mono"
                    autoComplete="off"
                    spellCheck={false}
                    value={r.name}
                    onChange={(ev) => set(i, { name: ev.target.value })}
                  />
                </div>
                <div className="field output-template">
                  <label htmlFor={`${id}-template`}>Template</label>
                  <input
                    type="text"
                    {...fieldAria(`${id}-template`, messages)}
                    name="output-template"
                    className="mono"
                    autoComplete="off"
                    spellCheck={false}
                    value={r.template}
                    onChange={(ev) => set(i, { template: ev.target.value })}
                  />
                  <FieldErrorText id={`${id}-template-error`} messages={messages} />
                </div>
                <div className="row-remove">
                  <button
                    type="button"
                    className="link-button"
                    onClick={() => onChange(rows.filter((_, j) => j !== i))}
                    aria-label={`Remove result value ${r.name || i + 1}`}
                  >
                    Remove
                  </button>
                </div>
              </li>
            )
          })}
        </ul>
      )}
      <button type="button" onClick={() => onChange([...rows, emptyOutput()])}>
        Add result value
      </button>
    </fieldset>
  )
}

export function TemplateHelp() {
  return (
    <details className="template-help">
      <summary>Templates: how to use values</summary>
      <p>
        Any input can hold <code>{'{{ }}'}</code> parts, worked out when the step runs. Inside them is a{' '}
        <a href="https://docs.jsonata.org/overview" target="_blank" rel="noreferrer">
          JSONata
        </a>{' '}
        expression:
      </p>
      <ul>
        <li>
          <code>{'{{ inputs.subject }}'}</code>: the run's input variable <code>subject</code>.
        </li>
        <li>
          <code>{'{{ steps.<key>.output.id }}'}</code>: a field of an earlier step's output.
        </li>
        <li>
          <code>{'{{ event.card.name }}'}</code>: the trigger's event, in a run a trigger started.
        </li>
        <li>
          <code>{'Re: {{ $uppercase(inputs.subject) }}'}</code>: text around an expression, and JSONata's
          functions.
        </li>
      </ul>
      <p className="muted">A box that holds only one expression keeps its type: a number stays a number.</p>
    </details>
  )
}

/** The signing secret of a new external agent: shown here once, never again. */
export function SecretOnce({ secret }: { secret: string }) {
  return (
    <div className="banner banner-info secret-once" role="status">
      <div className="banner-body">
        <p className="banner-title">Copy the signing secret now: it is shown only once</p>
        <p>
          Your service checks each delivery's signature with it (Standard Webhooks). Switchyard keeps no
          readable copy, so it cannot show it again.
        </p>
        <ShownOnce value={secret} testId="signing-secret" what="secret" />
      </div>
    </div>
  )
}
