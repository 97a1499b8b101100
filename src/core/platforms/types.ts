import type { z } from 'zod'
import type { ApiClient } from '../http/api-client.ts'
import type { RateLimitFacts } from '../limits/rate-limit-headers.ts'
import type { PathPrefix } from '../http/endpoint.ts'
import type { HttpMethod } from '../http/method.ts'
import type { AnyTool } from '../tools/define.ts'
import type { AnyTrigger, WebhookFacts } from '../triggers/define.ts'

/** A field the user types when connecting (for example a Zendesk subdomain). Never a secret. */
export interface ConnectionField {
  name: string
  label: string
  help: string
  example: string
  /** Validates and normalises what the user typed; its error messages are shown next to the field. */
  schema: z.ZodType<string, string>
}

/** Who the app is at the platform: from the environment when live; the composition root supplies the sandbox's own app. */
export interface ClientFacts {
  /** The platform's authorize page is meant for a pop-up window (Vercel's integration install). */
  popup?: boolean
  /** Environment variables that switch the platform from its sandbox to the live service. */
  clientIdEnv: string
  clientSecretEnv: string
  /**
   * The variable holding the app's public name where the platform's authorize URL carries one
   * (for example the slug of a Vercel integration's install page).
   */
  appNameEnv?: string
}

/** Who this deployment is at the platform: its OAuth client, and the app's public name if any. */
export interface OAuthClient {
  clientId: string
  clientSecret: string
  appName?: string
}

export interface OAuth2Facts extends ClientFacts {
  kind: 'oauth2'
  authorizeUrl(base: string, client: OAuthClient): string
  tokenUrl(base: string): string
  scopes: string[]
  /** How the token endpoint wants its body. */
  tokenRequestBody: 'json' | 'form'
  /** Extra parameters for code exchange and refresh (for example a requested token lifetime). */
  extraTokenParams?: Record<string, string | number>
}

/** The three-legged OAuth 1.0a flow (RFC 5849); the client id and secret are the consumer key and secret. */
export interface OAuth1Facts extends ClientFacts {
  kind: 'oauth1'
  requestTokenUrl(base: string): string
  /** Where the person approves; the request token and any `authorizeParams` are added. */
  authorizeUrl(base: string, client: OAuthClient): string
  accessTokenUrl(base: string): string
  authorizeParams?: Record<string, string>
}

/** Credentials a person pastes instead of an interactive flow (for example an API key plus token). */
export interface PastedCredentialFacts {
  /** How the API Call step's `auth.method` names this way of authenticating, for example "api_key". */
  methodName: string
  fields: Array<{
    name: string
    label: string
    help: string
    secret: boolean
    schema: z.ZodType<string, string>
  }>
  /** Headers that authenticate a request with the pasted values. */
  headers(values: Record<string, string>): Record<string, string>
  /**
   * Explains a rejected pair in the person's terms (for example "that is the app secret, not a
   * token") with an error code for `diagnose`; undefined when there is nothing more specific to say.
   */
  explainRejection?(
    values: Record<string, string>,
    base: string,
  ): Promise<{ message: string; error: string } | undefined>
  /** Which pasted values identify the token and the app, for rate budgets. */
  identity: { token: string; app?: string }
  /** Where to get the missing values, given what was typed so far (for example a token page for a key). */
  helpUrl?(base: string, values: Record<string, string>): string | undefined
}

export interface AuthFacts {
  /** The flow the Connect button runs. */
  interactive: OAuth2Facts | OAuth1Facts
  pasted?: PastedCredentialFacts
}

export interface ApiFacts {
  /** The live account base URL, without the API path prefix. */
  baseUrl(fields: Record<string, string>): string
  /** Every API path starts with this (with its trailing slash), or matches this anchored pattern. */
  pathPrefix: PathPrefix
  /**
   * The prefix in words, to follow "start the path with" ("/api/v2/", "an API version such as
   * /v13/"), and one real path under it: help and refusals say the same thing (docs/tools.md).
   */
  pathHelp: { prefix: string; example: string }
  /** A variable a later step would take from an API Call's answer: what the map is for. */
  mapExample: { name: string; path: string }
  /** Query parameters every request carries, from the integration's fields (for example a team scope). */
  defaultQuery?(fields: Record<string, string>): Record<string, string>
  apiCallMethods: HttpMethod[]
  /** Response headers worth returning from an API Call besides content-type and rate-limit ones. */
  usefulHeaders: string[]
}

/** What an upstream failure body says, in the platform's own words. */
export interface UpstreamProblem {
  message: string
  fieldErrors?: Array<{ field: string; message: string }>
}

export interface AuthFailure {
  stage: 'authorize' | 'token' | 'identify' | 'call' | 'refresh'
  status?: number
  /** OAuth error code (access_denied, invalid_grant…) or the platform's own error name. */
  error?: string
  /** The account role, when identification got that far. */
  role?: string
}

export interface Identity {
  /** Stable id of the external account; reconnecting the same account updates, never duplicates. */
  externalId: string
  accountName: string
  /** Set when the account cannot be used, with the troubleshooting rule that explains it. */
  unusable?: AuthFailure
  /** Non-secret values to keep with the integration (for example the team it is scoped to). */
  fields?: Record<string, string>
}

export interface PlatformDefinition {
  id: string
  title: string
  /** What sort of platform this is; the catalogue search matches it ("ticketing"). */
  kind: string
  connectionFields: ConnectionField[]
  auth: AuthFacts
  api: ApiFacts
  rateLimit: RateLimitFacts
  /**
   * Fixed request budgets the platform enforces per token and per app, when it has them. Every
   * request on a credential draws on them, across processes; platforms whose limits depend on the
   * account (Zendesk's plan) rely on `rateLimit` headers instead.
   */
  rateBudget?: {
    perToken?: { limit: number; windowMs: number }
    perApp?: { limit: number; windowMs: number }
  }
  /**
   * Who authorised: called right after the token exchange with the new credentials. `grant` holds
   * what the token response said beyond the token itself (for example the team it was granted for).
   */
  identify(api: ApiClient, fields: Record<string, string>, grant: Record<string, string>): Promise<Identity>
  /** Best-effort revocation of the current token when an integration is disconnected. */
  revoke?(api: ApiClient): Promise<void>
  troubleshooting: { rules: string[]; diagnose(failure: AuthFailure): number[] }
  describeError(status: number, body: unknown): UpstreamProblem
  /**
   * Whether a refusal means the credential itself is dead (so the integration needs reconnecting)
   * rather than that this one request was not allowed. Default: any 401.
   */
  isCredentialFailure?(status: number, problem: UpstreamProblem): boolean
  /**
   * An unauthenticated GET, relative to the account's base URL, that answers 404 when the account the
   * connection fields name does not exist; `missing` says so, naming the field to correct. Made when
   * a connect starts, before the person leaves for the platform.
   */
  accountProbe?: { path: string; missing(fields: Record<string, string>): { field: string; message: string } }
  tools: AnyTool[]
  /** What can start an agent (docs/agents.md); instant ones need `webhooks`. */
  triggers: AnyTrigger[]
  webhooks?: WebhookFacts
}
