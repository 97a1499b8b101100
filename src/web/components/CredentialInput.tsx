import type { ReactNode, RefObject } from 'react'
import type { CredentialField } from '../api.ts'
import { sentence } from './ConnectionFieldInput.tsx'
import { FieldErrorText, fieldErrorId } from './FieldErrorText.tsx'

interface CredentialInputProps {
  formId: string
  field: CredentialField
  value: string
  shown: boolean
  messages?: string[]
  inputRef?: RefObject<HTMLInputElement | null>
  onChange: (value: string) => void
  onToggle: () => void
  children?: ReactNode
}

export function CredentialInput({
  formId,
  field: f,
  value,
  shown,
  messages,
  inputRef,
  onChange,
  onToggle,
  children,
}: CredentialInputProps) {
  const id = `${formId}-${f.name}`
  const errorId = fieldErrorId(formId, f.name)
  const describedBy =
    [f.help ? `${id}-help` : '', messages ? errorId : ''].filter(Boolean).join(' ') || undefined
  const masked = f.secret === true && !shown
  return (
    <div className="field">
      <label htmlFor={id}>{f.label}</label>
      <div className="secret-input">
        <input
          ref={inputRef}
          id={id}
          name={f.name}
          type={masked ? 'password' : 'text'}
          // Not a login password: keep browsers and password managers from offering to save it.
          autoComplete="off"
          data-1p-ignore=""
          data-lpignore="true"
          autoCapitalize="off"
          autoCorrect="off"
          spellCheck={false}
          value={value}
          aria-invalid={messages ? true : undefined}
          aria-describedby={describedBy}
          onChange={(e) => onChange(e.target.value)}
        />
        {f.secret && (
          <button type="button" className="secret-toggle" aria-controls={id} onClick={onToggle}>
            {shown ? 'Hide' : 'Show'}
            <span className="visually-hidden"> {f.label}</span>
          </button>
        )}
      </div>
      {f.help && (
        <p className="help" id={`${id}-help`}>
          {sentence(f.help)}
        </p>
      )}
      {children}
      <FieldErrorText id={errorId} messages={messages} />
    </div>
  )
}
