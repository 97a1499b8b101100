import { useEffect, useRef, useState, type FormEvent } from 'react'
import { api, ApiError, type Me } from '../api.ts'
import { ProblemMessage } from '../components/ProblemMessage.tsx'
import { peopleApi, ssoStartUrl } from '../people-api.ts'

interface Props {
  onSignedIn: (me: Me) => void
  /** Where to go once signed in (already checked to be a path of this site). */
  nextPath: string
  /** Why single sign-on failed, when the identity provider's return landed here. */
  ssoError: string | null
}

type Mode = 'password' | 'api_key'

/**
 * People sign in with email and password; an API key still works (the first admin of a fresh
 * install has only the generated one until they set a password, docs/security.md "People").
 */
export function LoginPage({ onSignedIn, nextPath, ssoError }: Props) {
  const [sso, setSso] = useState<{ enabled: boolean; name: string | null } | null>(null)
  const [mode, setMode] = useState<Mode>('password')
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [key, setKey] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const firstRef = useRef<HTMLInputElement>(null)

  useEffect(() => {
    document.title = 'Sign in · Switchyard'
    peopleApi.sso().then(setSso, () => setSso(null))
  }, [])
  useEffect(() => {
    firstRef.current?.focus()
  }, [mode])

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    const empty =
      mode === 'api_key' ? (!key.trim() ? 'empty-key' : null) : !email.trim() || !password ? 'empty' : null
    if (empty) {
      setError(empty)
      firstRef.current?.focus()
      return
    }
    setBusy(true)
    setError(null)
    try {
      if (mode === 'api_key') await api.signIn(key.trim())
      else await peopleApi.signInWithPassword(email.trim(), password)
      const me = await api.me({ notifyUnauthenticated: false })
      setKey('')
      setPassword('')
      onSignedIn(me)
    } catch (err) {
      setError(err)
      setBusy(false)
      firstRef.current?.focus()
    }
  }

  const switchTo = (next: Mode) => {
    setMode(next)
    setError(null)
  }

  const message = loginMessage(error, mode)
  // Under the field it is about; the API key's keeps the id scripts and tests know it by.
  const errorId = mode === 'api_key' ? 'api-key-error' : 'login-error'

  return (
    <main className="login" id="main">
      <form className="panel login-panel" onSubmit={submit} noValidate aria-labelledby="login-heading">
        <h1 id="login-heading">Sign in to Switchyard</h1>
        {ssoError && (
          <p className="field-error" role="alert" data-testid="sso-error">
            Single sign-on did not sign you in: {ssoError}
          </p>
        )}
        {mode === 'password' ? (
          <>
            <div className="field">
              <label htmlFor="email">Email</label>
              <input
                ref={firstRef}
                id="email"
                name="email"
                type="email"
                autoComplete="username"
                spellCheck={false}
                value={email}
                aria-invalid={message ? true : undefined}
                aria-describedby={message ? errorId : undefined}
                onChange={(e) => setEmail(e.target.value)}
              />
            </div>
            <div className="field">
              <label htmlFor="password">Password</label>
              <input
                id="password"
                name="password"
                type="password"
                autoComplete="current-password"
                value={password}
                aria-invalid={message ? true : undefined}
                aria-describedby={message ? errorId : undefined}
                onChange={(e) => setPassword(e.target.value)}
              />
            </div>
          </>
        ) : (
          <div className="field">
            <label htmlFor="api-key">API key</label>
            <input
              ref={firstRef}
              id="api-key"
              name="api_key"
              type="password"
              autoComplete="off"
              spellCheck={false}
              placeholder="sy_…"
              value={key}
              aria-invalid={message ? true : undefined}
              aria-describedby={message ? errorId : 'api-key-help'}
              onChange={(e) => setKey(e.target.value)}
            />
            <p className="help" id="api-key-help">
              Use any API key of your account (a fresh install prints the first admin's). The key is exchanged
              for a browser session and is not stored here.
            </p>
          </div>
        )}
        {message && (
          <p className="field-error" id={errorId} role="alert" data-field-error>
            {message}
          </p>
        )}
        {error !== null && !message && <ProblemMessage error={error} />}
        <div className="actions">
          <button type="submit" className="button-primary" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </div>
        <p className="login-alternatives">
          {mode === 'password' ? (
            <button type="button" className="link-button" onClick={() => switchTo('api_key')}>
              Sign in with an API key instead
            </button>
          ) : (
            <button type="button" className="link-button" onClick={() => switchTo('password')}>
              Sign in with email and password
            </button>
          )}
        </p>
        <p className="help">Forgot your password? Ask an admin for a reset link.</p>
        {sso?.enabled && (
          <div className="login-sso">
            {/* A plain link: the identity provider's pages are a full navigation, not a call. */}
            <a className="button" href={ssoStartUrl(nextPath)}>
              Sign in with {sso.name}
            </a>
          </div>
        )}
      </form>
    </main>
  )
}

function loginMessage(error: unknown, mode: Mode): string | null {
  if (error === 'empty') return 'Enter your email and password.'
  if (error === 'empty-key') return 'Enter an API key.'
  if (!(error instanceof ApiError)) return null
  if (error.status === 401 && mode === 'password')
    return 'That email and password do not match an account. New here? Use the invitation link an admin gave you.'
  if (error.status === 401)
    return 'That API key was not accepted. Check that you pasted the whole key (it starts with sy_) and that it has not been deleted.'
  if (error.status === 429)
    return error.problem.detail ?? 'Too many failed sign-ins: wait a little and try again.'
  // Malformed input is refused naming the member.
  const fieldErrors = error.problem.errors ?? []
  if (error.status === 400 && fieldErrors.length > 0)
    return fieldErrors
      .map((e) => `${e.field.replace(/^body\./, '').replace('_', ' ')}: ${e.message}`)
      .join(' ')
  return null
}
