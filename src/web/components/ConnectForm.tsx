import { useEffect, useRef, useState, type FormEvent } from 'react'
import { api, ApiError, type Platform } from '../api.ts'
import { groupFieldErrors } from '../field-errors.ts'
import { authorizesInPopup } from '../platform-titles.ts'
import { useConnectPopup } from '../use-connect-popup.ts'
import { ConnectionFieldInputs } from './ConnectionFieldInput.tsx'
import { PopupStatus } from './PopupStatus.tsx'
import { FormProblem } from './ProblemMessage.tsx'

interface ConnectFormProps {
  platform: Platform
  heading?: boolean
  autoFocus?: boolean
  onCancel: () => void
  onAuthorized?: () => void
}

/**
 * The authorization flow: connection fields, then the platform's consent page, in this tab or (for
 * `authorize_in: 'popup'` platforms such as Vercel) in a pop-up window.
 */
export function ConnectForm({
  platform,
  heading = false,
  autoFocus = true,
  onCancel,
  onAuthorized,
}: ConnectFormProps) {
  const formId = `connect-${platform.id}`
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(platform.connection_fields.map((f) => [f.name, ''])),
  )
  const [error, setError] = useState<unknown>(null)
  const [redirecting, setRedirecting] = useState(false)
  const firstInput = useRef<HTMLInputElement>(null)
  const inPopup = authorizesInPopup(platform)
  const popup = useConnectPopup(platform.title, (message) => {
    if (message.connected) onAuthorized?.()
  })
  const popupState = popup.status.state
  const submitting = redirecting || popupState === 'starting' || popupState === 'waiting'

  // Not when the form appears below the choice of method: focus stays on the radio buttons.
  useEffect(() => {
    if (autoFocus) firstInput.current?.focus()
  }, [autoFocus])

  const names = platform.connection_fields.map((f) => f.name)
  const grouped = groupFieldErrors(
    error instanceof ApiError ? error.problem.errors : undefined,
    'fields',
    names,
  )

  const fields = () => Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v.trim()]))

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    setError(null)
    if (inPopup) {
      // Opened here, in the click's own handler, so that pop-up blockers let it through.
      popup.start(async () => {
        try {
          return (await api.connect(platform.id, fields())).connect_url
        } catch (err) {
          setError(err)
          throw err
        }
      })
      return
    }
    setRedirecting(true)
    try {
      const { connect_url } = await api.connect(platform.id, fields())
      // The platform's consent page is a full page load; it comes back to /integrations?connected=<id>.
      window.location.href = connect_url
    } catch (err) {
      setError(err)
      setRedirecting(false)
    }
  }

  const cancel = () => {
    popup.cancel()
    onCancel()
  }

  const hasFieldErrors = Object.keys(grouped.byField).length > 0
  return (
    <form id={formId} className="connect-form" onSubmit={submit} noValidate>
      {heading && <h3>Connect {platform.title}</h3>}
      {platform.connection_fields.length === 0 && (
        <p className="muted">
          No details are needed;{' '}
          {inPopup ? `a ${platform.title} window will open` : `you will be sent to ${platform.title}`} to
          allow access.
        </p>
      )}
      <ConnectionFieldInputs
        formId={formId}
        fields={platform.connection_fields}
        values={values}
        messages={grouped.byField}
        firstInputRef={firstInput}
        onChange={(name, v) => setValues((old) => ({ ...old, [name]: v }))}
      />
      <FormProblem error={error} hasFieldErrors={hasFieldErrors} otherFieldErrors={grouped.other} />
      {inPopup && (
        <PopupStatus
          title={platform.title}
          status={popup.status}
          onFocus={popup.focus}
          onStop={popup.cancel}
        />
      )}
      <div className="actions">
        <button type="submit" className="button-primary" disabled={submitting}>
          {popupState === 'waiting'
            ? `Waiting for ${platform.title}…`
            : submitting
              ? 'Connecting…'
              : `Connect ${platform.title}`}
        </button>
        <button type="button" onClick={cancel} disabled={redirecting || popupState === 'starting'}>
          Cancel
        </button>
      </div>
    </form>
  )
}
