// The identity provider sandbox's people and its one client (docs/sandbox.md, "Identity provider").

export interface SandboxPerson {
  sub: string
  email: string
  name: string
  /** What the provider says of the email; absent: it says nothing (no `email_verified` claim). */
  emailVerified?: boolean
}

export const OIDC_PEOPLE: SandboxPerson[] = [
  { sub: 'idp-ada', email: 'ada@example.test', name: 'Ada Lovelace', emailVerified: true },
  { sub: 'idp-grace', email: 'grace@example.test', name: 'Grace Hopper', emailVerified: true },
  // From a domain no rule admits: shows a refusal.
  { sub: 'idp-mallory', email: 'mallory@elsewhere.test', name: 'Mallory Elsewhere', emailVerified: true },
  // Claims an address the provider never checked: never trusted with an account.
  { sub: 'idp-eve', email: 'eve@example.test', name: 'Eve Unverified', emailVerified: false },
  // Says nothing of whether the address was checked (no email_verified claim): trusted no more than Eve.
  { sub: 'idp-una', email: 'una@example.test', name: 'Una Unstated' },
]

export const OIDC_CLIENT = { clientId: 'switchyard-sandbox', clientSecret: 'sandbox-oidc-client-secret' }

/** The email-domain rule Switchyard uses with this sandbox unless told otherwise: example.test joins on free. */
export const OIDC_SANDBOX_DOMAINS = 'example.test=free'
