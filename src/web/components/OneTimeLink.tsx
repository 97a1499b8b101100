import type { PasswordLink } from '../people-api.ts'
import { ShownOnce } from './ShownOnce.tsx'

/** An invitation or reset link, shown once, with a Copy button: the admin hands it over. */
export function OneTimeLink({ link, email }: { link: PasswordLink; email: string }) {
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
      <ShownOnce value={link.url} testId="password-link" what="link" />
    </>
  )
}
