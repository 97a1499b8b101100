import type { RefObject } from 'react'
import type { ConnectionField } from '../api.ts'
import { FieldErrorText, fieldErrorId } from './FieldErrorText.tsx'

/** Help text reads as a sentence, whether or not the platform's text ends with a full stop. */
export const sentence = (text: string) => (/[.!?]$/.test(text.trim()) ? text : `${text.trim()}.`)

interface ConnectionFieldInputProps {
  formId: string
  field: ConnectionField
  value: string
  messages?: string[]
  inputRef?: RefObject<HTMLInputElement | null>
  onChange: (value: string) => void
}

export function ConnectionFieldInput({
  formId,
  field: f,
  value,
  messages,
  inputRef,
  onChange,
}: ConnectionFieldInputProps) {
  const id = `${formId}-${f.name}`
  const errorId = fieldErrorId(formId, f.name)
  const describedBy =
    [f.help ? `${id}-help` : '', messages ? errorId : ''].filter(Boolean).join(' ') || undefined
  return (
    <div className="field">
      <label htmlFor={id}>{f.label}</label>
      <input
        ref={inputRef}
        id={id}
        name={f.name}
        type="text"
        autoComplete="off"
        spellCheck={false}
        placeholder={f.example}
        value={value}
        aria-invalid={messages ? true : undefined}
        aria-describedby={describedBy}
        onChange={(e) => onChange(e.target.value)}
      />
      {f.help && (
        <p className="help" id={`${id}-help`}>
          {sentence(f.help)}
          {f.example && <span className="muted"> For example: {f.example}</span>}
        </p>
      )}
      <FieldErrorText id={errorId} messages={messages} />
    </div>
  )
}

interface ConnectionFieldInputsProps {
  formId: string
  fields: ConnectionField[]
  values: Record<string, string>
  messages: Record<string, string[]>
  /** Given to the first field's input, for focus. */
  firstInputRef?: RefObject<HTMLInputElement | null>
  onChange: (name: string, value: string) => void
}

/** A platform's connection fields, in order. */
export function ConnectionFieldInputs({
  formId,
  fields,
  values,
  messages,
  firstInputRef,
  onChange,
}: ConnectionFieldInputsProps) {
  return fields.map((f, i) => (
    <ConnectionFieldInput
      key={f.name}
      formId={formId}
      field={f}
      value={values[f.name] ?? ''}
      messages={messages[f.name]}
      inputRef={i === 0 ? firstInputRef : undefined}
      onChange={(v) => onChange(f.name, v)}
    />
  ))
}
