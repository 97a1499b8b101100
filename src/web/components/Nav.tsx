import type { Me } from '../api.ts'
import { Link } from './Link.tsx'

const LINKS = [
  {
    to: '/integrations',
    label: 'Integrations',
    match: (p: string) => p === '/' || p.startsWith('/integrations'),
  },
  {
    to: '/model-connections',
    label: 'Models',
    match: (p: string) => p.startsWith('/model-connections'),
  },
  { to: '/agents', label: 'Agents', match: (p: string) => p.startsWith('/agents') },
  { to: '/runs', label: 'Runs', match: (p: string) => p.startsWith('/runs') },
  { to: '/approvals', label: 'Approvals', match: (p: string) => p.startsWith('/approvals') },
  { to: '/tools', label: 'Tool steps', match: (p: string) => p.startsWith('/tools') },
  { to: '/settings/keys', label: 'API keys', match: (p: string) => p.startsWith('/settings/keys') },
  // Shown to admins only; the server refuses the rest anyway.
  {
    to: '/settings/users',
    label: 'Users',
    match: (p: string) => p.startsWith('/settings/users'),
    adminOnly: true,
  },
]

interface Props {
  me: Me
  pathname: string
  onSignOut: () => void
}

export function Nav({ me, pathname, onSignOut }: Props) {
  return (
    <header className="topbar">
      <nav aria-label="Main" className="nav">
        <Link to="/integrations" className="brand">
          Switchyard
        </Link>
        <ul>
          {LINKS.filter((l) => !l.adminOnly || me.role === 'admin').map((l) => (
            <li key={l.to}>
              <Link to={l.to} aria-current={l.match(pathname) ? 'page' : undefined}>
                {l.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <div className="account">
        {/* Who is signed in, and the way to their password and sessions; on a phone only the plan shows. */}
        <Link
          to="/settings/account"
          className="account-link"
          aria-label={`Account: ${me.email}, plan ${me.plan}`}
          title="Your password and sessions"
          aria-current={pathname.startsWith('/settings/account') ? 'page' : undefined}
        >
          <span className="account-email" data-testid="user-email">
            {me.email}
          </span>
          <span
            className={`badge badge-plan-${me.plan}`}
            data-testid="user-plan"
            title={`Signed in as ${me.email}, plan ${me.plan}`}
          >
            {me.plan}
          </span>
        </Link>
        <button type="button" className="link-button" onClick={onSignOut}>
          Sign out
        </button>
      </div>
    </header>
  )
}
