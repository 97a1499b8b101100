import { useEffect, useRef, useState, type FormEvent } from 'react'
import { api, ApiError, type Integration, type Platform } from '../api.ts'
import { credentialHelpQuery, credentialsToSend, emptyCredentials, safeHttpUrl } from '../credentials.ts'
import { groupFieldErrors } from '../field-errors.ts'
import { ConnectionFieldInputs } from './ConnectionFieldInput.tsx'
import { CredentialInput } from './CredentialInput.tsx'
import { FormProblem } from './ProblemMessage.tsx'

interface CredentialsFormProps {
  platform: Platform
  heading?: boolean
  autoFocus?: boolean
  onCancel: () => void
  onConnected: (integration: Integration) => void
  /** Reconnecting this integration: new values replace its credentials, and its fields stay as they are. */
  reconnecting?: Integration
}

/**
 * Pasted credentials (Trello's API key plus token). The values live only in this component's state
 * and the body of the one request that checks them: never in the address bar, storage or logs, and
 * they are cleared once the integration exists.
 */
export function CredentialsForm({
  platform,
  heading = false,
  autoFocus = false,
  onCancel,
  onConnected,
  reconnecting,
}: CredentialsFormProps) {
  const formId = reconnecting ? `reconnect-${reconnecting.id}` : `credentials-${platform.id}`
  const credentialFields = platform.credential_fields ?? []
  const connectionFields = reconnecting ? [] : platform.connection_fields
  const [fieldValues, setFieldValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(connectionFields.map((f) => [f.name, ''])),
  )
  const [values, setValues] = useState<Record<string, string>>(() => emptyCredentials(credentialFields))
  const [shown, setShown] = useState<Record<string, boolean>>({})
  const [error, setError] = useState<unknown>(null)
  const [submitting, setSubmitting] = useState(false)
  const [helpUrl, setHelpUrl] = useState<string | null>(null)
  const firstInput = useRef<HTMLInputElement>(null)

  useEffect(() => {
    if (autoFocus) firstInput.current?.focus()
  }, [autoFocus])

  // As soon as the key looks like one, ask where its token is created (only the key is sent).
  const helpQuery = credentialHelpQuery(values)
  useEffect(() => {
    setHelpUrl(null)
    if (!helpQuery) return
    const controller = new AbortController()
    api.credentialHelp(platform.id, helpQuery, controller.signal).then(
      (r) => !controller.signal.aborted && setHelpUrl(safeHttpUrl(r.url)),
      () => {}, // no link then; the field's help still says where the value comes from
    )
    return () => controller.abort()
  }, [platform.id, helpQuery])

  const problem = error instanceof ApiError ? error.problem : undefined
  const byCredential = groupFieldErrors(
    problem?.errors,
    'credentials',
    credentialFields.map((f) => f.name),
  )
  const byField = groupFieldErrors(
    byCredential.other,
    'fields',
    connectionFields.map((f) => f.name),
  )
  const hasFieldErrors = Object.keys(byCredential.byField).length + Object.keys(byField.byField).length > 0

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    setSubmitting(true)
    setError(null)
    try {
      const fields = Object.fromEntries(Object.entries(fieldValues).map(([k, v]) => [k, v.trim()]))
      const credentials = credentialsToSend(credentialFields, values)
      const integration = reconnecting
        ? await api.replaceCredentials(reconnecting.id, credentials)
        : await api.connectWithCredentials(platform.id, fields, credentials)
      setValues(emptyCredentials(credentialFields))
      setFieldValues(Object.fromEntries(connectionFields.map((f) => [f.name, ''])))
      setShown({})
      setSubmitting(false)
      onConnected(integration)
    } catch (err) {
      setError(err)
      setSubmitting(false)
    }
  }

  // The token page link belongs with the value it helps create: the field after the key.
  const hasKey = credentialFields.some((f) => f.name === 'key')
  const linkField = hasKey ? credentialFields.find((f) => f.name !== 'key')?.name : undefined

  return (
    <form
      id={formId}
      className="connect-form credentials-form"
      onSubmit={submit}
      noValidate
      autoComplete="off"
    >
      {heading && (
        <h3>{reconnecting ? `Reconnect ${reconnecting.account_name}` : `Connect ${platform.title}`}</h3>
      )}
      {reconnecting && (
        <p className="help">
          Paste a new key and token of the same {platform.title} account. They are checked with{' '}
          {platform.title} before they replace the old ones.
        </p>
      )}
      <ConnectionFieldInputs
        formId={formId}
        fields={connectionFields}
        values={fieldValues}
        messages={byField.byField}
        firstInputRef={firstInput}
        onChange={(name, v) => setFieldValues((old) => ({ ...old, [name]: v }))}
      />
      {credentialFields.map((f, i) => (
        <CredentialInput
          key={f.name}
          formId={formId}
          field={f}
          value={values[f.name] ?? ''}
          shown={shown[f.name] ?? false}
          messages={byCredential.byField[f.name]}
          inputRef={connectionFields.length === 0 && i === 0 ? firstInput : undefined}
          onChange={(v) => setValues((old) => ({ ...old, [f.name]: v }))}
          onToggle={() => setShown((old) => ({ ...old, [f.name]: !old[f.name] }))}
        >
          {f.name === linkField && (
            <p className="credential-help" data-testid="credential-help">
              {helpUrl ? (
                <a href={helpUrl} target="_blank" rel="noopener noreferrer">
                  Create a token for this key<span className="visually-hidden"> (opens in a new tab)</span>
                </a>
              ) : (
                <span className="muted">
                  Type the API key above to get a link to the page that creates its token.
                </span>
              )}
            </p>
          )}
        </CredentialInput>
      ))}
      <FormProblem error={error} hasFieldErrors={hasFieldErrors} otherFieldErrors={byField.other} />
      <div className="actions">
        <button type="submit" className="button-primary" disabled={submitting}>
          {submitting ? 'Checking…' : reconnecting ? 'Reconnect' : `Connect ${platform.title}`}
        </button>
        <button type="button" onClick={onCancel} disabled={submitting}>
          Cancel
        </button>
      </div>
    </form>
  )
}
