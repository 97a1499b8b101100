import { useEffect, useRef, useState, type FormEvent } from 'react'
import { api, ApiError, type Me } from '../api.ts'
import { ProblemMessage } from '../components/ProblemMessage.tsx'
import { linkToken, peopleApi, type LinkDetails } from '../people-api.ts'

/**
 * Where an invitation or reset link lands (`/welcome#token=…`): the person chooses a password and is
 * signed in. The token stays in the fragment, which the browser never sends to a server; it is
 * removed from the address bar at once, so it is not left in the history either.
 */
export function WelcomePage({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [token] = useState(() => linkToken(window.location.hash))
  const [details, setDetails] = useState<LinkDetails | null>(null)
  const [loadError, setLoadError] = useState<unknown>(token ? null : 'no-token')
  const [password, setPassword] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const inputRef = useRef<HTMLInputElement>(null)

  useEffect(() => {
    document.title = 'Choose your password · Switchyard'
    if (window.location.hash) history.replaceState(history.state, '', window.location.pathname)
    if (token) peopleApi.inspectLink(token).then(setDetails, setLoadError)
  }, [token])

  useEffect(() => {
    if (details) inputRef.current?.focus()
  }, [details])

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    if (!token) return
    setBusy(true)
    setError(null)
    try {
      await peopleApi.acceptLink(token, password)
      onSignedIn(await api.me({ notifyUnauthenticated: false }))
    } catch (err) {
      setError(err)
      setBusy(false)
      inputRef.current?.focus()
    }
  }

  const fieldMessage =
    error instanceof ApiError && error.status === 400
      ? (error.problem.errors ?? [])
          .filter((e) => e.field.endsWith('password'))
          .map((e) => e.message)
          .join(' ') || null
      : null

  return (
    <main className="login" id="main">
      <div className="panel login-panel">
        {loadError !== null ? (
          <>
            <h1 tabIndex={-1}>This link does not work</h1>
            {loadError === 'no-token' ? (
              <p>
                Open the whole link you were given: it ends with <code>#token=</code> and a long code.
              </p>
            ) : (
              <ProblemMessage error={loadError} />
            )}
            <p>
              <a href="/login">Go to sign in</a>
            </p>
          </>
        ) : details === null ? (
          <p className="muted" aria-busy="true">
            Checking the link…
          </p>
        ) : (
          <form onSubmit={submit} noValidate aria-labelledby="welcome-heading">
            <h1 id="welcome-heading">
              {details.purpose === 'invitation' ? 'Welcome to Switchyard' : 'Choose a new password'}
            </h1>
            <p>
              {details.purpose === 'invitation' ? 'Choose a password for ' : 'For '}
              <strong data-testid="welcome-email">{details.email}</strong>. This link works once, until{' '}
              {new Date(details.expires_at).toLocaleString()}.
            </p>
            {/* For password managers: the account the new password belongs to. */}
            <input type="email" name="email" autoComplete="username" value={details.email} readOnly hidden />
            <div className="field">
              <label htmlFor="new-password">New password</label>
              <input
                ref={inputRef}
                id="new-password"
                name="password"
                type="password"
                autoComplete="new-password"
                value={password}
                aria-invalid={fieldMessage ? true : undefined}
                aria-describedby={fieldMessage ? 'new-password-error' : 'new-password-help'}
                onChange={(e) => setPassword(e.target.value)}
              />
              <p className="help" id="new-password-help">
                At least 10 characters and hard to guess: a few unrelated words work well.
              </p>
              {fieldMessage && (
                <p className="field-error" id="new-password-error" role="alert" data-field-error>
                  {fieldMessage}
                </p>
              )}
            </div>
            {error !== null && !fieldMessage && <ProblemMessage error={error} />}
            <div className="actions">
              <button type="submit" className="button-primary" disabled={busy}>
                {busy ? 'Saving…' : 'Set password and sign in'}
              </button>
            </div>
          </form>
        )}
      </div>
    </main>
  )
}
