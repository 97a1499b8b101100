import * as oidc from 'openid-client'
import type { OidcSettings, SsoDomainRule } from '../config.ts'
import { AppError } from '../errors.ts'
import { sha256 } from '../ids.ts'
import type { Db } from '../store/database.ts'
import { safeNextPath } from './next-path.ts'
import type { User, Users } from './users.ts'

/** How long a person has at their identity provider before the sign-in must start again. */
export const SSO_FLOW_TTL_MS = 10 * 60 * 1000

/** The path the identity provider sends people back to; registered with the provider as `<public URL>/v1/sso/callback`. */
export const SSO_CALLBACK_PATH = '/v1/sso/callback'

/**
 * Single sign-on with OpenID Connect (docs/security.md, "People"; docs/configuration.md): the
 * authorization code flow with PKCE and a nonce, through openid-client. The flow's state is bound to
 * the browser that started it (a cookie the route sets), so a code from someone else's sign-in cannot
 * be replayed into this browser (login CSRF). A person is matched to an account by an email address
 * the identity provider says it verified; someone without an account joins only when their email's
 * domain has a rule, on that rule's plan.
 */
export class SingleSignOn {
  private discovered: Promise<oidc.Configuration> | undefined

  constructor(
    private readonly db: Db,
    private readonly users: Users,
    private readonly settings: OidcSettings,
    private readonly rules: SsoDomainRule[],
    private readonly publicUrl: string,
    private readonly now: () => number = Date.now,
  ) {}

  get name(): string {
    return this.settings.name
  }

  /** The provider's configuration, discovered once; a failed discovery is tried again next time. */
  private configuration(): Promise<oidc.Configuration> {
    this.discovered ??= oidc
      .discovery(
        new URL(this.settings.issuer),
        this.settings.clientId,
        undefined,
        // client_secret_basic: the default of OpenID Connect's token endpoint authentication.
        oidc.ClientSecretBasic(this.settings.clientSecret),
        // Plain http only where config allows it (never in production: core/config.ts).
        this.settings.issuer.startsWith('http:') ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      .catch((err: unknown) => {
        this.discovered = undefined
        throw new AppError(
          'upstream_error',
          `the identity provider at ${this.settings.issuer} did not answer its discovery: ${messageOf(err)}`,
        )
      })
    return this.discovered
  }

  /** Where to send the browser, and the state to bind to it (the route sets it as a cookie). */
  async start(next: unknown): Promise<{ url: string; state: string }> {
    const config = await this.configuration()
    const state = oidc.randomState()
    const nonce = oidc.randomNonce()
    const verifier = oidc.randomPKCECodeVerifier()
    await this.db.deleteFrom('sso_flows').where('expires_at', '<', new Date(this.now())).execute()
    await this.db
      .insertInto('sso_flows')
      .values({
        state_hash: sha256(state),
        code_verifier: verifier,
        nonce,
        next_path: safeNextPath(next),
        expires_at: new Date(this.now() + SSO_FLOW_TTL_MS),
      })
      .execute()
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: `${this.publicUrl}${SSO_CALLBACK_PATH}`,
      scope: 'openid email profile',
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    })
    return { url: url.href, state }
  }

  /**
   * The provider sent the browser back: check that this browser started the flow, trade the code,
   * and find or admit the person. The flow is used up whatever the outcome.
   */
  async finish(callbackUrl: URL, browserState: string | undefined): Promise<{ user: User; next: string }> {
    const state = callbackUrl.searchParams.get('state')
    if (!state || !browserState || state !== browserState)
      throw new AppError(
        'forbidden',
        'this sign-in was not started in this browser: start it again from the sign-in page',
      )
    const flow = await this.db
      .deleteFrom('sso_flows')
      .where('state_hash', '=', sha256(state))
      .returning(['code_verifier', 'nonce', 'next_path', 'expires_at'])
      .executeTakeFirst()
    if (!flow || new Date(flow.expires_at).getTime() <= this.now())
      throw new AppError(
        'gone',
        'this sign-in has expired or was already used: start it again from the sign-in page',
      )
    const providerError = callbackUrl.searchParams.get('error')
    if (providerError)
      throw new AppError(
        'unauthenticated',
        `the identity provider did not sign you in (${providerError.slice(0, 100)})`,
      )
    const config = await this.configuration()
    let email: unknown
    let verified: unknown
    let name: unknown
    try {
      const tokens = await oidc.authorizationCodeGrant(
        config,
        // The provider redirected to our public URL; behind a proxy the request's own may differ.
        new URL(`${this.publicUrl}${SSO_CALLBACK_PATH}${callbackUrl.search}`),
        {
          pkceCodeVerifier: flow.code_verifier,
          expectedState: state,
          expectedNonce: flow.nonce,
          idTokenExpected: true,
        },
      )
      const claims = tokens.claims()!
      const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)
      email = info.email ?? claims.email
      verified = info.email_verified ?? claims.email_verified
      name = info.name ?? claims.name
    } catch (err) {
      throw new AppError(
        'unauthenticated',
        `the identity provider's answer could not be checked: ${messageOf(err)}`,
      )
    }
    // Only a verified email matches an account: unverified or unstated (no claim), the address is
    // whatever was typed at the provider, and matching it would hand over the account that has it.
    if (typeof email !== 'string' || verified !== true)
      throw new AppError(
        'forbidden',
        'your identity provider did not confirm your email address, so it cannot be matched to an account',
      )
    const user = await this.findOrAdmit(email.toLowerCase(), typeof name === 'string' ? name : undefined)
    return { user, next: safeNextPath(flow.next_path) }
  }

  private async findOrAdmit(email: string, name: string | undefined): Promise<User> {
    const existing = await this.db
      .selectFrom('users')
      .select(['id', 'email', 'name', 'plan', 'role'])
      .where('email', '=', email)
      .executeTakeFirst()
    if (existing) return existing
    const domain = email.slice(email.lastIndexOf('@') + 1)
    const rule = this.rules.find((r) =>
      r.domain.startsWith('*.') ? domain.endsWith(r.domain.slice(1)) : domain === r.domain,
    )
    if (!rule)
      throw new AppError(
        'forbidden',
        `${email} has no account here, and ${domain} is not a domain that may join: ask an admin to add you`,
      )
    try {
      return await this.users.create({
        email,
        ...(name?.trim() ? { name: name.trim().slice(0, 200) } : {}),
        plan: rule.plan,
      })
    } catch (err) {
      // Two first sign-ins at once: the other made the account.
      if (err instanceof AppError && err.code === 'conflict') return this.findOrAdmit(email, name)
      throw err
    }
  }
}

/** The error's words, with the provider's own error code when it sent one (never a token: those are not in errors). */
function messageOf(err: unknown): string {
  const base = err instanceof Error ? err.message : String(err)
  const code =
    err instanceof oidc.ResponseBodyError
      ? ` (${err.error}${err.error_description ? `: ${err.error_description}` : ''})`
      : ''
  return `${base}${code}`.slice(0, 300)
}
