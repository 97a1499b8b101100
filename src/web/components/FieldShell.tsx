import type { ReactNode } from 'react'
import { FieldErrorText } from './FieldErrorText.tsx'

/** The aria attributes of a control with help text and errors below it (FieldShell renders them). */
export function fieldAria(id: string, messages: readonly string[] | undefined, hasHelp = false) {
  const invalid = !!messages && messages.length > 0
  const describedBy =
    [hasHelp ? `${id}-help` : '', invalid ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined
  return { id, 'aria-invalid': invalid || undefined, 'aria-describedby': describedBy }
}

interface Props {
  id: string
  label: ReactNode
  optional?: boolean
  help?: ReactNode
  messages?: readonly string[]
  className?: string
  children: ReactNode
}

/** A label, its control, help text and errors, laid out like SchemaForm's fields. */
export function FieldShell({ id, label, optional, help, messages, className, children }: Props) {
  return (
    <div className={['field', className].filter(Boolean).join(' ')}>
      <label htmlFor={id}>
        {label}
        {optional && <span className="optional"> (optional)</span>}
      </label>
      {children}
      {help && (
        <p className="help" id={`${id}-help`}>
          {help}
        </p>
      )}
      <FieldErrorText id={`${id}-error`} messages={messages} />
    </div>
  )
}
