import { useEffect, useRef, useState, type FormEvent } from 'react'
import { api, ApiError, type Me } from '../api.ts'
import { ProblemMessage } from '../components/ProblemMessage.tsx'

interface Props {
  onSignedIn: (me: Me) => void
}

export function LoginPage({ onSignedIn }: Props) {
  const [key, setKey] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const inputRef = useRef<HTMLInputElement>(null)

  useEffect(() => {
    document.title = 'Sign in · Switchyard'
    inputRef.current?.focus()
  }, [])

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    if (!key.trim()) {
      setError('empty')
      inputRef.current?.focus()
      return
    }
    setBusy(true)
    setError(null)
    try {
      await api.signIn(key.trim())
      const me = await api.me({ notifyUnauthenticated: false })
      setKey('')
      onSignedIn(me)
    } catch (err) {
      setError(err)
      setBusy(false)
      inputRef.current?.focus()
    }
  }

  const message = loginMessage(error)

  return (
    <main className="login" id="main">
      <form className="panel login-panel" onSubmit={submit} noValidate aria-labelledby="login-heading">
        <h1 id="login-heading">Sign in to Switchyard</h1>
        <div className="field">
          <label htmlFor="api-key">API key</label>
          <input
            ref={inputRef}
            id="api-key"
            name="api_key"
            type="password"
            autoComplete="off"
            spellCheck={false}
            placeholder="sy_…"
            value={key}
            aria-invalid={message ? true : undefined}
            aria-describedby={message ? 'api-key-error' : 'api-key-help'}
            onChange={(e) => setKey(e.target.value)}
          />
          <p className="help" id="api-key-help">
            Use any API key of your account. The key is exchanged for a browser session and is not stored
            here.
          </p>
          {message && (
            <p className="field-error" id="api-key-error" role="alert" data-field-error>
              {message}
            </p>
          )}
        </div>
        {error !== null && !message && <ProblemMessage error={error} />}
        <div className="actions">
          <button type="submit" className="button-primary" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </div>
      </form>
    </main>
  )
}

function loginMessage(error: unknown): string | null {
  if (error === 'empty') return 'Enter an API key.'
  if (!(error instanceof ApiError)) return null
  if (error.status === 401)
    return 'That API key was not accepted. Check that you pasted the whole key (it starts with sy_) and that it has not been deleted.'
  // A malformed key is refused as invalid input naming the api_key member.
  const keyErrors = (error.problem.errors ?? []).filter(
    (e) => e.field === 'api_key' || e.field.endsWith('.api_key'),
  )
  if (error.status === 400 && keyErrors.length > 0) return keyErrors.map((e) => e.message).join(' ')
  return null
}
