import { useCallback, useEffect, useState, type FormEvent } from 'react'
import { ApiError, type Me } from '../api.ts'
import { Banner } from '../components/Banner.tsx'
import { ConfirmButton } from '../components/ConfirmButton.tsx'
import { ProblemMessage } from '../components/ProblemMessage.tsx'
import { describeBrowser, peopleApi, type SessionListing, type SignInMethod } from '../people-api.ts'

const METHOD: Record<SignInMethod, string> = {
  password: 'Password',
  api_key: 'API key',
  link: 'Invitation or reset link',
  sso: 'Single sign-on',
}
const formatDate = (iso: string) => new Date(iso).toLocaleString()

/** A person's own password and browser sessions (docs/security.md, "People"). */
export function AccountPage({
  me,
  onMeChanged,
  onSignedOut,
}: {
  me: Me
  onMeChanged: (me: Me) => void
  onSignedOut: () => void
}) {
  useEffect(() => {
    document.title = 'Account · Switchyard'
  }, [])
  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Account</h1>
      </div>
      <p className="muted">
        Signed in as <strong>{me.email}</strong>.
      </p>
      <PasswordForm me={me} onChanged={() => onMeChanged({ ...me, has_password: true })} />
      <Sessions onSignedOut={onSignedOut} />
    </>
  )
}

function PasswordForm({ me, onChanged }: { me: Me; onChanged: () => void }) {
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [done, setDone] = useState(false)
  const [busy, setBusy] = useState(false)
  const hasPassword = Boolean(me.has_password)

  const errorsOf = (field: string) =>
    error instanceof ApiError
      ? (error.problem.errors ?? [])
          .filter((e) => e.field.replace(/^body\./, '') === field)
          .map((e) => e.message)
          .join(' ')
      : ''
  const currentError = errorsOf('current_password')
  const newError = errorsOf('new_password')

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    setDone(false)
    try {
      await peopleApi.changePassword(next, hasPassword ? current : undefined)
      setCurrent('')
      setNext('')
      setDone(true)
      onChanged()
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }

  return (
    <section className="panel" aria-labelledby="password-heading">
      <h2 id="password-heading">{hasPassword ? 'Change your password' : 'Set a password'}</h2>
      {!hasPassword && (
        <p className="help">
          You signed in with an API key. Set a password to sign in with your email from now on.
        </p>
      )}
      {done && (
        <Banner kind="success" title="Password saved" onDismiss={() => setDone(false)}>
          <p>Your other browsers were signed out; this one stays signed in.</p>
        </Banner>
      )}
      <form onSubmit={submit} noValidate>
        <input type="email" name="email" autoComplete="username" value={me.email} readOnly hidden />
        {hasPassword && (
          <div className="field">
            <label htmlFor="current-password">Current password</label>
            <input
              id="current-password"
              type="password"
              autoComplete="current-password"
              value={current}
              aria-invalid={currentError ? true : undefined}
              aria-describedby={currentError ? 'current-password-error' : undefined}
              onChange={(e) => setCurrent(e.target.value)}
            />
            {currentError && (
              <p className="field-error" id="current-password-error" data-field-error>
                {currentError}
              </p>
            )}
          </div>
        )}
        <div className="field">
          <label htmlFor="account-new-password">New password</label>
          <input
            id="account-new-password"
            type="password"
            autoComplete="new-password"
            value={next}
            aria-invalid={newError ? true : undefined}
            aria-describedby={newError ? 'account-new-password-error' : 'account-new-password-help'}
            onChange={(e) => setNext(e.target.value)}
          />
          <p className="help" id="account-new-password-help">
            At least 10 characters and hard to guess: a few unrelated words work well.
          </p>
          {newError && (
            <p className="field-error" id="account-new-password-error" data-field-error>
              {newError}
            </p>
          )}
        </div>
        {error !== null && !currentError && !newError && <ProblemMessage error={error} />}
        <div className="actions">
          <button type="submit" className="button-primary" disabled={busy}>
            {busy ? 'Saving…' : hasPassword ? 'Change password' : 'Set password'}
          </button>
        </div>
      </form>
    </section>
  )
}

function Sessions({ onSignedOut }: { onSignedOut: () => void }) {
  const [sessions, setSessions] = useState<SessionListing[] | null>(null)
  const [error, setError] = useState<unknown>(null)

  const load = useCallback(() => {
    peopleApi.sessions().then(setSessions, setError)
  }, [])
  useEffect(load, [load])

  const end = async (s: SessionListing) => {
    setError(null)
    try {
      await peopleApi.endSession(s.id)
      if (s.current) onSignedOut()
      else setSessions((list) => list?.filter((x) => x.id !== s.id) ?? null)
    } catch (err) {
      setError(err)
    }
  }

  const everywhere = async () => {
    setError(null)
    try {
      await peopleApi.signOutEverywhere()
      onSignedOut()
    } catch (err) {
      setError(err)
    }
  }

  return (
    <section className="panel" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Where you are signed in</h2>
      <p className="help">Browsers signed in to your account. API keys are for machines: see API keys.</p>
      {error !== null && <ProblemMessage error={error} />}
      {sessions === null && error === null && <p className="muted">Loading sessions…</p>}
      {sessions && (
        <table className="key-table session-table">
          <caption className="visually-hidden">Your sessions</caption>
          <thead>
            <tr>
              <th scope="col">Browser</th>
              <th scope="col">Signed in with</th>
              <th scope="col">Signed in</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sessions.map((s) => (
              <tr key={s.id} data-session-id={s.id}>
                <td data-label="Browser">
                  <span>
                    {describeBrowser(s.user_agent)}
                    {s.current && <span className="muted"> (this browser)</span>}
                  </span>
                </td>
                <td data-label="Signed in with">{METHOD[s.method] ?? s.method}</td>
                <td data-label="Signed in">{formatDate(s.created_at)}</td>
                <td data-label="Last used">{formatDate(s.last_seen_at)}</td>
                <td className="cell-actions">
                  <button type="button" onClick={() => end(s)}>
                    {s.current ? 'Sign out' : 'End'}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="actions">
        <ConfirmButton
          question="Sign out of every browser, this one too?"
          confirmLabel="Sign out everywhere"
          onConfirm={everywhere}
          danger
        >
          Sign out everywhere
        </ConfirmButton>
      </div>
    </section>
  )
}
