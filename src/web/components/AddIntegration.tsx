import { useEffect, useRef, useState } from 'react'
import { api, type Integration, type Platform } from '../api.ts'
import { connectMethodsOf, type ConnectMethod } from '../credentials.ts'
import { ConnectForm } from './ConnectForm.tsx'
import { CredentialsForm } from './CredentialsForm.tsx'
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
                // Pasted credentials need no OAuth client, so such a platform stays open to them.
                disabled={p.mode === 'not_configured' && !p.connect_methods?.includes('credentials')}
                title={p.mode === 'not_configured' ? notConfiguredHint(p) : undefined}
                onClick={() => setPlatform(p)}
              >
                <span className="platform-title">{p.title}</span>
                <span className="muted">
                  {p.kind}
                  {p.mode === 'sandbox' ? ' · sandbox' : ''}
                  {p.mode === 'not_configured' ? ' · not configured' : ''}
                </span>
              </button>
            ))}
          </div>
          {platforms
            .filter((p) => p.mode === 'not_configured')
            .map((p) => (
              <p key={p.id} className="muted not-configured">
                {notConfiguredHint(p)}
              </p>
            ))}
        </fieldset>
      )}
      {platform && (
        <ConnectPanel
          key={platform.id}
          platform={platform}
          onCancel={onCancel}
          onConnected={onConnected}
          onAuthorized={onAuthorized}
        />
      )}
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
                <input
                  type="radio"
                  id={id}
                  name={name}
                  value={o.value}
                  checked={method === o.value}
                  aria-describedby={`${id}-help`}
                  onChange={() => setMethod(o.value)}
                />
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

/** Why a platform cannot be connected here, in the administrator's terms. */
function notConfiguredHint(p: Platform): string {
  const settings = `an administrator sets ${(p.missing_settings ?? []).join(', ')} (docs/configuration.md)`
  return p.connect_methods?.includes('credentials')
    ? `${p.title}'s Connect button is not configured on this Switchyard (${settings}); pasting credentials still works.`
    : `${p.title} is not configured on this Switchyard: ${settings}.`
}
