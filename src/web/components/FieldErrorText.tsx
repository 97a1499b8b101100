/** The id a field's input points at with aria-describedby / aria-errormessage. */
export const fieldErrorId = (formId: string, name: string) => `${formId}-${name}-error`

interface Props {
  id: string
  messages?: readonly string[]
}

export function FieldErrorText({ id, messages }: Props) {
  if (!messages || messages.length === 0) return null
  return (
    <p className="field-error" id={id} data-field-error>
      {messages.join(' ')}
    </p>
  )
}
