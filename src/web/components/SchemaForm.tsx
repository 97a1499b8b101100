import { visibleFields, type FormField, type FormValue, type FormValues } from '../schema-form.ts'
import type { PickerSource } from './OptionsPicker.tsx'
import { FieldErrorText, fieldErrorId } from './FieldErrorText.tsx'
import { OptionsPicker } from './OptionsPicker.tsx'

/** Where the fields with options get them (docs/tool-options.md); without it every field is typed. */
export interface FormPickers {
  /** `/v1/tools/{id}` or `/v1/triggers/{id}` (see PickerSource). */
  optionsBase: string
  integrationId: string
  fieldOptions: Record<string, { dependsOn: string[] }>
}

/** Kinds a picker can fill: an id typed as text, a number, or a comma-separated list of ids. */
const PICKABLE = new Set(['text', 'integer', 'text-or-number', 'string-list'])

interface Props {
  formId: string
  fields: readonly FormField[]
  values: FormValues
  onChange: (name: string, value: FormValue) => void
  /** Field name → messages (from the server's problem or from local coercion). */
  errors: Record<string, readonly string[]>
  disabled?: boolean
  pickers?: FormPickers
}

/** Renders the inputs for a tool's input schema (see schema-form.ts for the mapping). */
export function SchemaForm({ formId, fields, values, onChange, errors, disabled, pickers }: Props) {
  if (fields.length === 0) return <p className="muted">This step takes no input.</p>
  return (
    <div className="schema-form">
      {visibleFields(fields, values).map((f) => (
        <SchemaField
          key={f.name}
          formId={formId}
          field={f}
          value={values[f.name]}
          onChange={onChange}
          messages={errors[f.name]}
          disabled={disabled}
          picker={pickerFor(f, fields, values, pickers)}
        />
      ))}
    </div>
  )
}

interface FieldProps {
  formId: string
  field: FormField
  value: FormValue | undefined
  onChange: (name: string, value: FormValue) => void
  messages?: readonly string[]
  disabled?: boolean
  picker?: PickerSource
}

function pickerFor(
  f: FormField,
  fields: readonly FormField[],
  values: FormValues,
  pickers: FormPickers | undefined,
): PickerSource | undefined {
  const declared = pickers?.fieldOptions[f.name]
  if (!pickers || !declared || !PICKABLE.has(f.kind)) return undefined
  const depends = declared.dependsOn.map((name) => {
    const value = values[name]
    return {
      name,
      label: fields.find((d) => d.name === name)?.label ?? name,
      value: typeof value === 'string' ? value.trim() : '',
    }
  })
  return { optionsBase: pickers.optionsBase, integrationId: pickers.integrationId, field: f.name, depends }
}

function SchemaField({ formId, field: f, value, onChange, messages, disabled, picker }: FieldProps) {
  const id = `${formId}-${f.name}`
  const helpId = `${id}-help`
  const errorId = fieldErrorId(formId, f.name)
  const invalid = !!messages && messages.length > 0
  const describedBy =
    [f.description || kindHint(f) ? helpId : '', invalid ? errorId : ''].filter(Boolean).join(' ') ||
    undefined
  const common = {
    id,
    name: f.name,
    disabled,
    'aria-invalid': invalid || undefined,
    'aria-describedby': describedBy,
    'aria-required': f.required || undefined,
  }
  const text = typeof value === 'string' ? value : ''
  const set = (v: FormValue) => onChange(f.name, v)

  let control
  if (picker) {
    control = (
      <OptionsPicker
        source={picker}
        multiple={f.kind === 'string-list'}
        value={text}
        onChange={set}
        inputProps={{ ...common, inputMode: f.inputMode }}
      />
    )
  } else
    switch (f.kind) {
      case 'boolean':
        control = (
          <input
            {...common}
            type="checkbox"
            checked={value === true}
            onChange={(e) => set(e.target.checked)}
          />
        )
        break
      case 'enum':
        control = (
          <select {...common} value={text} onChange={(e) => set(e.target.value)}>
            <option value="">{f.required ? 'Choose…' : '— not set —'}</option>
            {f.options?.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        )
        break
      case 'textarea':
        control = (
          <textarea
            {...common}
            rows={4}
            value={text}
            placeholder={f.placeholder}
            onChange={(e) => set(e.target.value)}
          />
        )
        break
      case 'json':
        control = (
          <textarea
            {...common}
            className="mono"
            rows={4}
            spellCheck={false}
            value={text}
            placeholder={f.placeholder ?? 'JSON'}
            onChange={(e) => set(e.target.value)}
          />
        )
        break
      default:
        control = (
          <input
            {...common}
            type={f.secret ? 'password' : 'text'}
            inputMode={f.inputMode}
            autoComplete={f.secret ? 'new-password' : 'off'}
            value={text}
            placeholder={f.placeholder}
            onChange={(e) => set(e.target.value)}
          />
        )
    }

  const hint = kindHint(f)
  return (
    <div className={`field${f.kind === 'boolean' ? ' field-checkbox' : ''}`}>
      <label htmlFor={id}>
        {f.label}
        {f.required ? (
          <span className="required" aria-hidden="true">
            {' '}
            *
          </span>
        ) : (
          <span className="optional"> (optional)</span>
        )}
      </label>
      {control}
      {(f.description || hint) && (
        <p className="help" id={helpId}>
          {f.description && hint ? asSentence(f.description) : f.description}
          {f.description && hint ? ' ' : ''}
          {hint && <span className="muted">{hint}</span>}
        </p>
      )}
      <FieldErrorText id={errorId} messages={messages} />
    </div>
  )
}

function kindHint(f: FormField): string | undefined {
  switch (f.kind) {
    case 'string-list':
      return 'Separate values with commas.'
    case 'json':
      return 'Enter JSON.'
    case 'text-or-number':
      return f.integerOnly ? 'A numeric id or text.' : 'A number or text.'
    default:
      return undefined
  }
}

const asSentence = (text: string) => (/[.!?:]$/.test(text.trim()) ? text : `${text.trim()}.`)
