import { escapeHtml } from './http.ts'

/** Who a newcomer can sign in as on a sandbox's sign-in page, with the one password they share. */
export interface SandboxAccounts {
  password: string
  people: Array<{ email: string; name: string; note?: string }>
}

/**
 * The "Sandbox accounts" box of every sandbox's sign-in page, so a newcomer on `npm start` knows
 * what to type. Test credentials of a local emulator, never a real account's; none, no box.
 */
export function sandboxAccountsBox(accounts: SandboxAccounts): string {
  if (accounts.people.length === 0) return ''
  const items = accounts.people
    .map(
      (p) =>
        `<li><code class="email">${escapeHtml(p.email)}</code> ${escapeHtml(p.name)}${p.note ? ` (${escapeHtml(p.note)})` : ''}</li>`,
    )
    .join('\n')
  return `<aside class="sandbox-accounts" id="sandbox-accounts">
<h2>Sandbox accounts</h2>
<p>Test users of this local sandbox; each one's password is <code class="password">${escapeHtml(accounts.password)}</code></p>
<ul>
${items}
</ul>
</aside>
`
}
