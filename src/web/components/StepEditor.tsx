import { useMemo, useRef, useState, type SyntheticEvent } from 'react'
import { InsertChoices } from './InsertChoices.tsx'
import { IntegrationPicker } from './IntegrationPicker.tsx'
import { toolPath, type Integration, type Tool } from '../api.ts'
import { templatedFields, withInputMode, type StepRow } from '../agent-form.ts'
import { fieldsFromSchema, type FormValue } from '../schema-form.ts'
import { insertAt, insertChoices } from '../template-text.ts'
import { FieldErrorText } from './FieldErrorText.tsx'
import { FieldShell, fieldAria } from './FieldShell.tsx'
import { Link } from './Link.tsx'
import { SchemaForm } from './SchemaForm.tsx'
import { SearchSelect, type SearchOption } from './SearchSelect.tsx'

export const STATUS_NOTE: Record<string, string> = {
  needs_reconnection: ' (needs reconnection)',
  disconnected: ' (disconnected)',
}

const STATUS_ORDER: Record<string, number> = { active: 0, needs_reconnection: 1, disconnected: 2 }
const rank = (i: Integration) => STATUS_ORDER[i.status] ?? 1

/** Integrations of a platform, usable ones first and disconnected ones last (never the first choice). */
export function integrationsFor(all: readonly Integration[], platform: string | undefined): Integration[] {
  return all.filter((i) => i.platform === platform).sort((a, b) => rank(a) - rank(b))
}

interface Props {
  index: number
  count: number
  step: StepRow
  tools: readonly Tool[]
  toolOptions: readonly SearchOption[]
  platformTitles: Record<string, string>
  /** Messages for places under this step (`key`, `tool`, `input`, `input.subject`, …; '' for the step itself). */
  errors: Record<string, string[]>
  /** The agent's input variables and the steps before this one, which its templates may name. */
  variables: readonly string[]
  earlierSteps: ReadonlyArray<{ key: string; tool: string }>
  onChange: (step: StepRow) => void
  onMove: (by: number) => void
  onRemove: () => void
}

/** One step of an agent: its key, tool step, integration, templated input, condition and what a failure does. */
export function StepEditor({
  index,
  count,
  step,
  tools,
  toolOptions,
  platformTitles,
  errors,
  variables,
  earlierSteps,
  onChange,
  onMove,
  onRemove,
}: Props) {
  const base = `agent-steps-${index}`
  const tool = tools.find((t) => t.id === step.tool)
  const fields = useMemo(() => (tool ? fieldsFromSchema(tool.inputSchema) : undefined), [tool])
  const shown = useMemo(() => (fields ? templatedFields(fields) : []), [fields])
  const [modeError, setModeError] = useState<string | null>(null)
  const platformTitle = tool ? (platformTitles[tool.platform] ?? tool.platform) : ''

  const set = (patch: Partial<StepRow>) => onChange({ ...step, ...patch })
  const chooseTool = (id: string) => {
    const next = tools.find((t) => t.id === id)
    // Another platform's integration cannot run it: the picker chooses one of the new platform's.
    const keep = next?.platform === tool?.platform
    setModeError(null)
    onChange({
      ...step,
      tool: id,
      fields: {},
      json: '{}',
      inputMode: 'form',
      integration: keep ? step.integration : '',
    })
  }
  const switchMode = (mode: 'form' | 'json') => {
    const { step: next, error } = withInputMode(step, mode, fields)
    setModeError(error ?? null)
    onChange(next)
  }
  const insertable = useMemo(
    () =>
      insertChoices(
        variables,
        earlierSteps.map((e) => ({
          key: e.key,
          outputSchema: tools.find((t) => t.id === e.tool)?.outputSchema,
        })),
      ),
    [variables, earlierSteps, tools],
  )
  // The input box last in focus and its selection: where an inserted template goes.
  const target = useRef<{ name: string | null; start: number | null; end: number | null } | null>(null)
  const track = (e: SyntheticEvent) => {
    const el = e.target
    if (
      !(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) ||
      (el instanceof HTMLInputElement && el.type !== 'text')
    )
      return
    target.current = {
      name: step.inputMode === 'json' ? null : el.name || null,
      start: el.selectionStart,
      end: el.selectionEnd,
    }
  }
  const insert = (template: string) => {
    const at = target.current
    const name = step.inputMode === 'json' ? null : (at?.name ?? shown[0]?.name ?? null)
    if (step.inputMode === 'form' && !name) return
    const current = name ? (step.fields[name] ?? '') : step.json
    const { text, caret } = insertAt(
      current,
      at && at.name === name ? at.start : null,
      at && at.name === name ? at.end : null,
      template,
    )
    target.current = { name, start: caret, end: caret }
    onChange(name ? { ...step, fields: { ...step.fields, [name]: text } } : { ...step, json: text })
    requestAnimationFrame(() => {
      const box = document.querySelector<HTMLInputElement | HTMLTextAreaElement>(
        name ? `#${CSS.escape(`${base}-input-${name}`)}` : `#${CSS.escape(`${base}-input-json`)}`,
      )
      box?.focus()
      box?.setSelectionRange(caret, caret)
    })
  }
  const inputErrors: Record<string, string[]> = {}
  for (const [place, messages] of Object.entries(errors))
    if (place.startsWith('input.')) inputErrors[place.slice('input.'.length)] = messages

  return (
    <li
      className="step-card"
      data-step-key={step.key}
      aria-label={`Step ${index + 1}${step.key ? `: ${step.key}` : ''}`}
    >
      <div className="step-head">
        <h3>
          Step {index + 1}
          {tool && <span className="muted step-head-tool"> · {tool.title}</span>}
        </h3>
        <div className="step-tools">
          <button
            type="button"
            onClick={() => onMove(-1)}
            disabled={index === 0}
            aria-label={`Move step ${index + 1} up`}
          >
            ↑
          </button>
          <button
            type="button"
            onClick={() => onMove(1)}
            disabled={index === count - 1}
            aria-label={`Move step ${index + 1} down`}
          >
            ↓
          </button>
          <button
            type="button"
            className="button-danger"
            onClick={onRemove}
            aria-label={`Remove step ${index + 1}`}
          >
            Remove
          </button>
        </div>
      </div>
      <FieldErrorText id={`${base}-error`} messages={errors['']} />

      <div className="step-grid">
        <FieldShell
          id={`${base}-key`}
          label="Key"
          help="Later steps name this step by it: {{ steps.<key>.output }}."
          messages={errors.key}
        >
          <input
            type="text"
            {...fieldAria(`${base}-key`, errors.key, true)}
            name="key"
            value={step.key}
            autoComplete="off"
            spellCheck={false}
            className="mono"
            onChange={(e) => set({ key: e.target.value })}
          />
        </FieldShell>
        <FieldShell id={`${base}-tool`} label="Tool step" messages={errors.tool}>
          <SearchSelect
            id={`${base}-tool`}
            name="tool"
            options={toolOptions}
            value={step.tool}
            placeholder="Search tool steps, e.g. create card"
            invalid={!!errors.tool}
            describedBy={errors.tool ? `${base}-tool-error` : undefined}
            onChange={chooseTool}
          />
        </FieldShell>
      </div>

      {tool && (
        <FieldShell id={`${base}-integration`} label="Integration" messages={errors.integration}>
          <IntegrationPicker
            aria={fieldAria(`${base}-integration`, errors.integration)}
            name="integration"
            platform={tool.platform}
            value={step.integration}
            onChange={(integration) => set({ integration })}
            chooseFirst
            empty={
              <p className="help">
                No {platformTitle} integration yet. <Link to="/integrations">Add one</Link> first.
              </p>
            }
          />
        </FieldShell>
      )}

      {(tool || step.tool) && (
        <fieldset className="step-input" onFocus={track} onSelect={track} onKeyUp={track} onClick={track}>
          <div className="step-input-head">
            <legend>Input</legend>
            <div className="segmented" role="group" aria-label={`Step ${index + 1} input as`}>
              <button
                type="button"
                aria-pressed={step.inputMode === 'form'}
                disabled={!tool}
                onClick={() => switchMode('form')}
              >
                Form
              </button>
              <button
                type="button"
                aria-pressed={step.inputMode === 'json'}
                onClick={() => switchMode('json')}
              >
                JSON
              </button>
            </div>
          </div>
          <InsertChoices
            choices={insertable}
            label={`Insert into step ${index + 1}'s input`}
            onInsert={insert}
          />
          {!tool && (
            <p className="field-error">
              There is no tool step {step.tool} any more: choose another, or keep its input as JSON.
            </p>
          )}
          {modeError && <p className="field-error">{modeError}</p>}
          <FieldErrorText id={`${base}-input-error`} messages={errors.input} />
          {step.inputMode === 'form' ? (
            <SchemaForm
              formId={`${base}-input`}
              fields={shown}
              values={step.fields}
              onChange={(name: string, value: FormValue) =>
                set({ fields: { ...step.fields, [name]: typeof value === 'string' ? value : String(value) } })
              }
              errors={inputErrors}
              pickers={
                step.integration && tool?.fieldOptions
                  ? {
                      optionsBase: toolPath(tool!.id),
                      integrationId: step.integration,
                      fieldOptions: tool!.fieldOptions!,
                    }
                  : undefined
              }
            />
          ) : (
            <textarea
              {...fieldAria(`${base}-input-json`, errors.input)}
              aria-label={`Step ${index + 1} input (JSON)`}
              className="mono"
              rows={8}
              spellCheck={false}
              value={step.json}
              onChange={(e) => set({ json: e.target.value })}
            />
          )}
        </fieldset>
      )}

      <div className="step-grid">
        <FieldShell
          id={`${base}-condition`}
          label="Condition"
          optional
          help='A JSONata expression; the step is skipped when it is false, e.g. inputs.priority = "high".'
          messages={errors.condition}
        >
          <input
            type="text"
            {...fieldAria(`${base}-condition`, errors.condition, true)}
            name="condition"
            className="mono"
            spellCheck={false}
            autoComplete="off"
            value={step.condition}
            onChange={(e) => set({ condition: e.target.value })}
          />
        </FieldShell>
        <FieldShell id={`${base}-on_failure`} label="When this step fails" messages={errors.on_failure}>
          <select
            {...fieldAria(`${base}-on_failure`, errors.on_failure)}
            name="on_failure"
            value={step.on_failure}
            onChange={(e) => set({ on_failure: e.target.value === 'continue' ? 'continue' : 'stop' })}
          >
            <option value="stop">Stop the run</option>
            <option value="continue">Go on with the next step</option>
          </select>
        </FieldShell>
      </div>
    </li>
  )
}
