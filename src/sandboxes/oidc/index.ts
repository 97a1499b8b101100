import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { Configuration, default as Provider } from 'oidc-provider'
import { homeLayout } from '../kit/home-page.ts'
import { escapeHtml } from '../kit/http.ts'
import { OIDC_CLIENT, OIDC_PEOPLE, type SandboxPerson } from './seed.ts'

/**
 * An OpenID Connect identity provider for tests and newcomers, mounted at /oidc on the sandbox port
 * (docs/sandbox.md, "Identity provider"). The protocol is oidc-provider's, a certified OpenID
 * provider library, not written here; only the sign-in page is ours: it lists the sandbox people and
 * signs in whoever is chosen, as an identity provider does after checking a password.
 */
export function oidcSandbox(): FastifyPluginAsync {
  return async (app, options) => {
    const prefix = (options as { prefix?: string }).prefix ?? '/oidc'
    // The issuer is this server's own address, known only once a request names the host it reached.
    // oidc-provider is loaded on the first request, so a sandbox server nobody signs in through
    // neither holds it in memory nor prints its start-up notices.
    const providers = new Map<string, Promise<Provider>>()
    const providerFor = (request: FastifyRequest): Promise<Provider> => {
      const issuer = `http://${request.headers.host}${prefix}`
      let provider = providers.get(issuer)
      if (!provider) {
        provider = createProvider(issuer, prefix)
        providers.set(issuer, provider)
      }
      return provider
    }

    // The home page, for people who open /oidc from the sandbox root: who can sign in, and how to
    // point a client at it. It needs no provider, so opening it does not load oidc-provider.
    app.get('/', async (request, reply) =>
      reply.type('text/html; charset=utf-8').send(homePage(`http://${request.headers.host}${prefix}`)),
    )

    // The sign-in page: pick a sandbox person.
    app.get<{ Params: { uid: string } }>('/interaction/:uid', async (request, reply) => {
      const provider = await providerFor(request)
      const details = await provider.interactionDetails(request.raw, reply.raw)
      const client = String(details.params.client_id ?? '')
      return reply.type('text/html; charset=utf-8').send(signInPage(prefix, details.uid, client))
    })

    app.post<{ Params: { uid: string }; Body: { person?: string } }>(
      '/interaction/:uid/login',
      async (request, reply) => {
        const provider = await providerFor(request)
        const details = await provider.interactionDetails(request.raw, reply.raw)
        const person = OIDC_PEOPLE.find((p) => p.sub === request.body?.person)
        if (!person) return reply.status(400).type('text/plain').send('Choose one of the sandbox people.')
        // Sandbox clients are first-party: what they ask for is granted with the sign-in.
        const grant = new provider.Grant({
          accountId: person.sub,
          clientId: String(details.params.client_id),
        })
        grant.addOIDCScope(String(details.params.scope ?? 'openid'))
        const grantId = await grant.save()
        reply.hijack()
        await provider.interactionFinished(
          request.raw,
          reply.raw,
          { login: { accountId: person.sub }, consent: { grantId } },
          { mergeWithLastSubmission: false },
        )
      },
    )

    // Everything else is the provider's: discovery, authorization, token, userinfo, keys.
    const handOver = async (request: FastifyRequest, reply: FastifyReply) => {
      const provider = await providerFor(request)
      reply.hijack()
      const raw = request.raw as typeof request.raw & { originalUrl?: string }
      raw.originalUrl = raw.url
      raw.url = raw.url!.slice(prefix.length) || '/'
      provider.callback()(raw, reply.raw)
    }
    // oidc-provider reads the bodies itself.
    app.removeAllContentTypeParsers()
    app.addContentTypeParser('*', (_request, _payload, done) => done(null))
    // Only our sign-in page's form is read here; the provider's own posts stay unread for it.
    app.addContentTypeParser('application/x-www-form-urlencoded', (request, payload, done) => {
      if (!request.url.includes('/interaction/')) return done(null, undefined)
      let text = ''
      payload.setEncoding('utf8')
      payload.on('data', (chunk: string) => {
        text += chunk
        if (text.length > 10_000) payload.destroy()
      })
      payload.on('end', () => done(null, Object.fromEntries(new URLSearchParams(text))))
      payload.on('error', (err) => done(err))
    })
    app.all('/*', handOver)
  }
}

async function createProvider(issuer: string, prefix: string): Promise<Provider> {
  const { default: Provider } = await import('oidc-provider')
  const configuration: Configuration = {
    clients: [
      {
        client_id: OIDC_CLIENT.clientId,
        client_secret: OIDC_CLIENT.clientSecret,
        // Any Switchyard on this machine: checked below, since its port is not known in advance.
        redirect_uris: ['http://127.0.0.1/v1/sso/callback'],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `${prefix}/interaction/${interaction.uid}` },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    async findAccount(_ctx, sub) {
      const person = OIDC_PEOPLE.find((p) => p.sub === sub)
      if (!person) return undefined
      return { accountId: sub, claims: async () => claimsOf(person) }
    },
    cookies: { keys: ['switchyard-sandbox-only'] },
  }
  const provider = new Provider(issuer, configuration)
  // The sandbox's one client may return to a Switchyard on any loopback port, as a local client may
  // (RFC 8252 §7.3); the path must still be the callback.
  provider.Client.prototype.redirectUriAllowed = function (value: string) {
    try {
      const url = new URL(value)
      return (
        url.protocol === 'http:' &&
        ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) &&
        url.pathname === '/v1/sso/callback' &&
        url.search === ''
      )
    } catch {
      return false
    }
  }
  return provider
}

/** The person's claims; `email_verified` is left out for a person the provider says nothing about. */
function claimsOf(person: SandboxPerson) {
  return {
    sub: person.sub,
    email: person.email,
    ...(person.emailVerified === undefined ? {} : { email_verified: person.emailVerified }),
    name: person.name,
  }
}

function homePage(issuer: string): string {
  const people = OIDC_PEOPLE.map(
    (p) =>
      `<tr><td>${escapeHtml(p.name)}</td><td><code>${escapeHtml(p.email)}</code></td><td>${verifiedText(p)}</td></tr>`,
  ).join('\n')
  return homeLayout(
    'Identity provider sandbox',
    `<h1>Identity provider sandbox</h1>
<p>An OpenID Connect provider for single sign-on. Switchyard's sign-in page offers it outside production when no other provider is configured: choose a person below on its sign-in page, with no password.</p>
<h2>People</h2>
<div class="table-wrap"><table id="people"><thead><tr><th>name</th><th>email</th><th>email verified</th></tr></thead>
<tbody>
${people}
</tbody></table></div>
<h2>For a client</h2>
<ul class="records">
<li>Issuer: <code>${escapeHtml(issuer)}</code></li>
<li>Discovery: <a href="${escapeHtml(`${issuer}/.well-known/openid-configuration`)}"><code>${escapeHtml(`${issuer}/.well-known/openid-configuration`)}</code></a></li>
<li>Client: <code>${escapeHtml(OIDC_CLIENT.clientId)}</code>, secret <code>${escapeHtml(OIDC_CLIENT.clientSecret)}</code>, returning to <code>http://127.0.0.1:{any port}/v1/sso/callback</code></li>
</ul>
<p><a href="/">All sandboxes</a></p>`,
  )
}

/** What the provider says of a person's email: verified, not verified, or nothing at all. */
function verifiedText(person: SandboxPerson): string {
  if (person.emailVerified === undefined) return 'not stated'
  return person.emailVerified ? 'yes' : 'no'
}

function signInPage(prefix: string, uid: string, client: string): string {
  const buttons = OIDC_PEOPLE.map(
    (p) => `<li><button type="submit" name="person" value="${escapeHtml(p.sub)}">
      <strong>${escapeHtml(p.name)}</strong><span>${escapeHtml(p.email)}${p.emailVerified ? '' : ` (email ${p.emailVerified === false ? 'not verified' : 'verification not stated'})`}</span>
    </button></li>`,
  ).join('')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · Identity provider sandbox</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;margin:0;padding:1.5rem;background:#f5f6f8;color:#1d1f24}
main{max-width:26rem;margin:0 auto;background:#fff;border:1px solid #d7d9e0;border-radius:8px;padding:1.25rem}
h1{font-size:1.3rem;margin:0 0 .5rem}ul{list-style:none;padding:0;margin:1rem 0 0;display:grid;gap:.5rem}
button{width:100%;text-align:left;padding:.75rem;border:1px solid #d7d9e0;border-radius:6px;background:#fff;cursor:pointer;font:inherit}
button:hover,button:focus{border-color:#3b5bdb;outline:2px solid #3b5bdb33}
button span{display:block;color:#5b5f6b;font-size:.9rem;overflow-wrap:anywhere}.muted{color:#5b5f6b;font-size:.9rem}
</style></head>
<body><main>
<h1>Sign in to the identity provider sandbox</h1>
<p class="muted">${escapeHtml(client)} asks who you are. This sandbox has no passwords: choose a person.</p>
<form method="post" action="${escapeHtml(prefix)}/interaction/${escapeHtml(uid)}/login"><ul>${buttons}</ul></form>
</main></body></html>`
}
