import { useEffect, useRef, useState, type FormEvent, type ReactNode, type RefObject } from 'react'
import { api, ApiError, type ConnectionField, type CredentialField, type Integration, type Platform } from '../api.ts'
import { connectMethodsOf, credentialHelpQuery, credentialsToSend, emptyCredentials, safeHttpUrl, type ConnectMethod } from '../credentials.ts'
import { groupFieldErrors } from '../field-errors.ts'
import { authorizesInPopup } from '../platform-titles.ts'
import { useConnectPopup, type PopupConnectStatus } from '../use-connect-popup.ts'
import { FieldErrorText, fieldErrorId } from './FieldErrorText.tsx'
import { ProblemMessage } from './ProblemMessage.tsx'

interface Props {
  onCancel: () => void
  /** An integration connected in place (pasted credentials); the authorization flow leaves the page instead. */
  onConnected: (integration: Integration) => void
  /** A pop-up authorization flow reported success (the page shows the result it was sent). */
  onAuthorized?: () => void
}

/**
 * Choose a platform, then either fill its connection fields and hand the browser to the platform's
 * consent page, or (for platforms that take them) paste credentials that are checked at once.
 */
export function AddIntegration({ onCancel, onConnected, onAuthorized }: Props) {
  const [platforms, setPlatforms] = useState<Platform[] | null>(null)
  const [loadError, setLoadError] = useState<unknown>(null)
  const [platform, setPlatform] = useState<Platform | null>(null)
  const headingRef = useRef<HTMLHeadingElement>(null)

  useEffect(() => {
    let live = true
    api.listPlatforms().then(
      (p) => live && setPlatforms(p),
      (e) => live && setLoadError(e),
    )
    headingRef.current?.focus()
    return () => {
      live = false
    }
  }, [])

  return (
    <section className="panel" aria-labelledby="add-integration-heading">
      <h2 id="add-integration-heading" ref={headingRef} tabIndex={-1}>
        Add integration
      </h2>
      {loadError !== null && <ProblemMessage error={loadError} />}
      {platforms === null && loadError === null && <p className="muted">Loading platforms…</p>}
      {platforms && (
        <fieldset className="platform-picker">
          <legend>Platform</legend>
          {platforms.length === 0 && <p className="muted">No platforms are available.</p>}
          <div className="platform-options">
            {platforms.map((p) => (
              <button
                key={p.id}
                type="button"
                className="platform-option"
                aria-pressed={platform?.id === p.id}
                onClick={() => setPlatform(p)}
              >
                <span className="platform-title">{p.title}</span>
                <span className="muted">
                  {p.kind}
                  {p.mode === 'sandbox' ? ' · sandbox' : ''}
                </span>
              </button>
            ))}
          </div>
        </fieldset>
      )}
      {platform && <ConnectPanel key={platform.id} platform={platform} onCancel={onCancel} onConnected={onConnected} onAuthorized={onAuthorized} />}
      {!platform && (
        <div className="actions">
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      )}
    </section>
  )
}

/** Offers the platform's ways to connect; a choice is shown only when there is more than one. */
function ConnectPanel({ platform, onCancel, onConnected, onAuthorized }: { platform: Platform } & Props) {
  const methods = connectMethodsOf(platform)
  const [method, setMethod] = useState<ConnectMethod>(methods[0])

  if (methods.length === 1) {
    return method === 'credentials' ? (
      <CredentialsForm platform={platform} heading autoFocus onCancel={onCancel} onConnected={onConnected} />
    ) : (
      <ConnectForm platform={platform} heading onCancel={onCancel} onAuthorized={onAuthorized} />
    )
  }

  const name = `connect-method-${platform.id}`
  const options: { value: ConnectMethod; title: string; description: string }[] = [
    {
      value: 'authorize',
      title: `Connect with ${platform.title} (recommended)`,
      description: `Sign in to ${platform.title} and allow access. Best for connecting your own account; nothing to copy or keep safe.`,
    },
    {
      value: 'credentials',
      title: 'Use an API key and token',
      description:
        'For server-to-server work, service accounts and persistent access that needs no one to sign in. You paste the key of your app and a token created for it.',
    },
  ]
  return (
    <div className="connect-panel">
      <h3>Connect {platform.title}</h3>
      <fieldset className="method-picker">
        <legend>How to connect</legend>
        {options
          .filter((o) => methods.includes(o.value))
          .map((o) => {
            const id = `${name}-${o.value}`
            return (
              <div className="method-option" key={o.value}>
                <input type="radio" id={id} name={name} value={o.value} checked={method === o.value} aria-describedby={`${id}-help`} onChange={() => setMethod(o.value)} />
                <label htmlFor={id} className="method-title">
                  {o.title}
                </label>
                <p className="help" id={`${id}-help`}>
                  {o.description}
                </p>
              </div>
            )
          })}
      </fieldset>
      {method === 'credentials' ? (
        <CredentialsForm platform={platform} onCancel={onCancel} onConnected={onConnected} />
      ) : (
        <ConnectForm platform={platform} autoFocus={false} onCancel={onCancel} onAuthorized={onAuthorized} />
      )}
    </div>
  )
}

const sentence = (text: string) => (/[.!?]$/.test(text.trim()) ? text : `${text.trim()}.`)

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
function ConnectForm({ platform, heading = false, autoFocus = true, onCancel, onAuthorized }: ConnectFormProps) {
  const formId = `connect-${platform.id}`
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(platform.connection_fields.map((f) => [f.name, ''])))
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
  const grouped = groupFieldErrors(error instanceof ApiError ? error.problem.errors : undefined, 'fields', names)

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
          No details are needed; {inPopup ? `a ${platform.title} window will open` : `you will be sent to ${platform.title}`} to allow access.
        </p>
      )}
      {platform.connection_fields.map((f, i) => (
        <ConnectionFieldInput
          key={f.name}
          formId={formId}
          field={f}
          value={values[f.name] ?? ''}
          messages={grouped.byField[f.name]}
          inputRef={i === 0 ? firstInput : undefined}
          onChange={(v) => setValues((old) => ({ ...old, [f.name]: v }))}
        />
      ))}
      {error !== null && (!hasFieldErrors || grouped.other.length > 0) && (
        <ProblemMessage error={error} otherFieldErrors={grouped.other} detail={hasFieldErrors ? 'Check the fields marked above.' : undefined} />
      )}
      {inPopup && <PopupStatus title={platform.title} status={popup.status} onFocus={popup.focus} onStop={popup.cancel} />}
      <div className="actions">
        <button type="submit" className="button-primary" disabled={submitting}>
          {popupState === 'waiting' ? `Waiting for ${platform.title}…` : submitting ? 'Connecting…' : `Connect ${platform.title}`}
        </button>
        <button type="button" onClick={cancel} disabled={redirecting || popupState === 'starting'}>
          Cancel
        </button>
      </div>
    </form>
  )
}

interface PopupStatusProps {
  title: string
  status: PopupConnectStatus
  onFocus: () => void
  onStop: () => void
}

/**
 * What the pop-up flow is doing, and what to do when the pop-up was blocked or closed. The live
 * region is always there, so that what appears in it is announced.
 */
export function PopupStatus({ title, status, onFocus, onStop }: PopupStatusProps) {
  return (
    <div className="popup-status-region" aria-live="polite">
      {status.state === 'waiting' && (
        <div className="popup-status" data-testid="popup-waiting">
          <p>Finish connecting in the {title} window: sign in, choose the account and allow access.</p>
          <div className="actions">
            <button type="button" className="link-button" onClick={onFocus}>
              Show the {title} window
            </button>
            <button type="button" className="link-button" onClick={onStop}>
              Stop waiting
            </button>
          </div>
        </div>
      )}
      {status.state === 'blocked' && (
        <div className="popup-status popup-status-warning" data-testid="popup-blocked">
          <p className="popup-status-title">Your browser blocked the {title} pop-up window.</p>
          <p>
            <a href={status.url}>Continue to {title} in this tab</a>, or allow pop-ups for this site and press Connect {title} again.
          </p>
        </div>
      )}
      {status.state === 'closed' && (
        <div className="popup-status" data-testid="popup-closed">
          <p>The {title} window was closed before access was granted. Nothing was connected; press Connect {title} to try again.</p>
        </div>
      )}
    </div>
  )
}

interface ConnectionFieldInputProps {
  formId: string
  field: ConnectionField
  value: string
  messages?: string[]
  inputRef?: RefObject<HTMLInputElement | null>
  onChange: (value: string) => void
}

function ConnectionFieldInput({ formId, field: f, value, messages, inputRef, onChange }: ConnectionFieldInputProps) {
  const id = `${formId}-${f.name}`
  const errorId = fieldErrorId(formId, f.name)
  const describedBy = [f.help ? `${id}-help` : '', messages ? errorId : ''].filter(Boolean).join(' ') || undefined
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

interface CredentialsFormProps {
  platform: Platform
  heading?: boolean
  autoFocus?: boolean
  onCancel: () => void
  onConnected: (integration: Integration) => void
}

/**
 * Pasted credentials (Trello's API key plus token). The values live only in this component's state
 * and the body of the one request that checks them: never in the address bar, storage or logs, and
 * they are cleared once the integration exists.
 */
function CredentialsForm({ platform, heading = false, autoFocus = false, onCancel, onConnected }: CredentialsFormProps) {
  const formId = `credentials-${platform.id}`
  const credentialFields = platform.credential_fields ?? []
  const [fieldValues, setFieldValues] = useState<Record<string, string>>(() => Object.fromEntries(platform.connection_fields.map((f) => [f.name, ''])))
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
  const byCredential = groupFieldErrors(problem?.errors, 'credentials', credentialFields.map((f) => f.name))
  const byField = groupFieldErrors(byCredential.other, 'fields', platform.connection_fields.map((f) => f.name))
  const other = byField.other
  const hasFieldErrors = Object.keys(byCredential.byField).length + Object.keys(byField.byField).length > 0

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    setSubmitting(true)
    setError(null)
    try {
      const fields = Object.fromEntries(Object.entries(fieldValues).map(([k, v]) => [k, v.trim()]))
      const integration = await api.connectWithCredentials(platform.id, fields, credentialsToSend(credentialFields, values))
      setValues(emptyCredentials(credentialFields))
      setFieldValues(Object.fromEntries(platform.connection_fields.map((f) => [f.name, ''])))
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
    <form id={formId} className="connect-form credentials-form" onSubmit={submit} noValidate autoComplete="off">
      {heading && <h3>Connect {platform.title}</h3>}
      {platform.connection_fields.map((f, i) => (
        <ConnectionFieldInput
          key={f.name}
          formId={formId}
          field={f}
          value={fieldValues[f.name] ?? ''}
          messages={byField.byField[f.name]}
          inputRef={i === 0 ? firstInput : undefined}
          onChange={(v) => setFieldValues((old) => ({ ...old, [f.name]: v }))}
        />
      ))}
      {credentialFields.map((f, i) => (
        <CredentialInput
          key={f.name}
          formId={formId}
          field={f}
          value={values[f.name] ?? ''}
          shown={shown[f.name] ?? false}
          messages={byCredential.byField[f.name]}
          inputRef={platform.connection_fields.length === 0 && i === 0 ? firstInput : undefined}
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
                <span className="muted">Type the API key above to get a link to the page that creates its token.</span>
              )}
            </p>
          )}
        </CredentialInput>
      ))}
      {error !== null && (!hasFieldErrors || other.length > 0) && (
        <ProblemMessage error={error} otherFieldErrors={other} detail={hasFieldErrors ? 'Check the fields marked above.' : undefined} />
      )}
      <div className="actions">
        <button type="submit" className="button-primary" disabled={submitting}>
          {submitting ? 'Checking…' : `Connect ${platform.title}`}
        </button>
        <button type="button" onClick={onCancel} disabled={submitting}>
          Cancel
        </button>
      </div>
    </form>
  )
}

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

function CredentialInput({ formId, field: f, value, shown, messages, inputRef, onChange, onToggle, children }: CredentialInputProps) {
  const id = `${formId}-${f.name}`
  const errorId = fieldErrorId(formId, f.name)
  const describedBy = [f.help ? `${id}-help` : '', messages ? errorId : ''].filter(Boolean).join(' ') || undefined
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
