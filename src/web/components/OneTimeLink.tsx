import { useRef, useState } from 'react'
import type { PasswordLink } from '../people-api.ts'

/** An invitation or reset link, shown once, with a Copy button: the admin hands it over. */
export function OneTimeLink({ link, email }: { link: PasswordLink; email: string }) {
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle')
  const codeRef = useRef<HTMLElement>(null)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link.url)
      setCopied('copied')
    } catch {
      const node = codeRef.current
      if (node) window.getSelection()?.selectAllChildren(node)
      setCopied('failed')
    }
  }
  const what = link.purpose === 'invitation' ? 'invitation link' : 'password reset link'
  return (
    <>
      <p>
        {link.emailed ? (
          <>
            The {what} was sent to <strong>{email}</strong>. You can also hand it over yourself:
          </>
        ) : (
          <>
            <strong>
              Hand this {what} to {email} privately
            </strong>
            : it lets them choose a password.
          </>
        )}{' '}
        It works once, until {new Date(link.expires_at).toLocaleString()}, and is not shown again.
      </p>
      <div className="new-key">
        <code ref={codeRef} data-testid="password-link">
          {link.url}
        </code>
        <button type="button" onClick={copy}>
          Copy
        </button>
        <span role="status" className="muted">
          {copied === 'copied'
            ? 'Copied.'
            : copied === 'failed'
              ? 'Could not copy; the link is selected, press Ctrl+C.'
              : ''}
        </span>
      </div>
    </>
  )
}
