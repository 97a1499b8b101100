import path from 'node:path'
import ipaddr from 'ipaddr.js'
import type { AgentNetworks } from './http/public-only.ts'
import { DEFAULT_RETENTION, perPlan, type RetentionSettings } from './retention/policy.ts'

// Every setting the service reads, in one place, so docs/configuration.md can list them honestly.
/** The default deadline of one exchange with a platform (SWITCHYARD_UPSTREAM_TIMEOUT_MS). */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 60_000

/** A minute: a due-date reminder is at most this late, and a Trello token's budget hardly notices the polls. */
export const DEFAULT_POLL_INTERVAL_SECONDS = 60

/** Half a minute: a crashed process's runs resume this long after it died (SWITCHYARD_RUN_LEASE_MS). */
export const DEFAULT_RUN_LEASE_MS = 30_000

/**
 * 256 KiB: a step's input or output past this is stored cut, with a marker (core/agents/stored-value.ts).
 * Ten times the largest answer of a listing step, and far below a 10 MB base64 attachment.
 */
export const DEFAULT_STEP_STORE_MAX_BYTES = 256 * 1024

export interface Config {
  /** production refuses to start without SWITCHYARD_ENCRYPTION_KEY and never writes a key file. */
  production: boolean
  dataDir: string
  databaseUrl?: string
  encryptionKey?: string
  host: string
  port: number
  /** Public origin of this service; OAuth redirect URIs are built from it, so it must be exact. */
  publicUrl: string
  /** Port of the bundled sandboxes when they run in-process (embedded default). */
  sandboxPort: number
  /** Base URL of an already running sandbox server; when set, start does not start its own. */
  sandboxUrl?: string
  logLevel: string
  /** Deadline of one exchange with a platform, from sending to the answer's last byte. */
  upstreamTimeoutMs: number
  /** How long a client may take to send a whole request, headers and body (docs/configuration.md). */
  requestTimeoutMs: number
  /** How long a client may take to send the request headers. */
  headersTimeoutMs: number
  /** The first admin's email, created on a first start with no users (required for that in production). */
  adminEmail?: string
  /** When set, /metrics answers whoever sends it as a Bearer token; unset, only loopback (docs/operating.md). */
  metricsToken?: string
  /** How often polled triggers ask their platform for news (docs/configuration.md). */
  pollIntervalMs: number
  /** Which networks external agents' addresses may be in: public only (production's default), or any (docs/security.md). */
  agentNetworks: AgentNetworks
  /** How many runs one process executes at once. */
  runConcurrency: number
  /** How long a claimed run stays with a process that stopped renewing it before another takes it over. */
  runLeaseMs: number
  /** How long finished runs and events are kept, per plan (core/retention/policy.ts). */
  retention: RetentionSettings
  /** The most a step's input or its output takes in the store; more is cut, with a marker. */
  stepStoreMaxBytes: number
  /** Where invitation and reset links are mailed (smtp:// or smtps://); unset, the admin hands them over. */
  smtpUrl?: string
  /** The From of those mails. */
  mailFrom: string
  /** Single sign-on with OpenID Connect, when SWITCHYARD_OIDC_ISSUER is set (docs/configuration.md). */
  oidc?: OidcSettings
  /** Email-domain rules: who may join through single sign-on, and on which plan. */
  ssoDomains: SsoDomainRule[]
  /**
   * The reverse proxies whose X-Forwarded-For is believed (addresses, CIDR ranges, or `loopback`,
   * `linklocal`, `uniquelocal`); empty: the client is the socket's peer (docs/configuration.md).
   */
  trustedProxies: string[]
}

export interface OidcSettings {
  issuer: string
  clientId: string
  clientSecret: string
  /** What the sign-in button says: "Sign in with <name>". */
  name: string
}

export interface SsoDomainRule {
  /** A domain (`example.com`) or a domain and its subdomains (`*.example.com`). */
  domain: string
  plan: 'free' | 'pro' | 'enterprise'
}

/** `example.com=pro, *.example.org` (the plan defaults to free): a rule per domain, or a problem to report. */
export function parseSsoDomains(raw: string): { rules: SsoDomainRule[] } | { problem: string } {
  const rules: SsoDomainRule[] = []
  for (const part of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [domain, plan = 'free'] = part.split('=').map((p) => p.trim().toLowerCase())
    if (!/^(\*\.)?([a-z0-9-]+\.)+[a-z0-9-]+$/.test(domain ?? ''))
      return { problem: `SWITCHYARD_SSO_DOMAINS has "${part}", which names no domain (e.g. example.com=pro)` }
    if (!['free', 'pro', 'enterprise'].includes(plan))
      return {
        problem: `SWITCHYARD_SSO_DOMAINS gives ${domain} the plan "${plan}": use free, pro or enterprise`,
      }
    rules.push({ domain, plan: plan as SsoDomainRule['plan'] })
  }
  return { rules }
}

/** The named ranges fastify's trustProxy (proxy-addr) knows, beside addresses and CIDR ranges. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal']

/**
 * `10.0.0.5, 192.168.0.0/16, loopback`: the proxies whose X-Forwarded-For is believed, or a problem to
 * report. Only addresses and ranges: trusting "any" peer or a hop count would let whoever reaches the
 * service directly name any client address they like.
 */
export function parseTrustedProxies(raw: string): { proxies: string[] } | { problem: string } {
  const proxies: string[] = []
  for (const part of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    if (!PROXY_RANGE_NAMES.includes(part) && !isAddressOrRange(part))
      return {
        problem: `SWITCHYARD_TRUST_PROXY has "${part.slice(0, 60)}", which is not an IP address, a CIDR range (10.0.0.0/8) or one of ${PROXY_RANGE_NAMES.join(', ')}`,
      }
    proxies.push(part)
  }
  return { proxies }
}

/** An IPv4 address in four decimal parts or an IPv6 address, with or without a `/prefix` that fits it. */
function isAddressOrRange(text: string): boolean {
  const [address = '', prefix, ...rest] = text.split('/')
  if (rest.length) return false
  const bits = ipaddr.IPv4.isValidFourPartDecimal(address) ? 32 : ipaddr.IPv6.isValid(address) ? 128 : 0
  if (!bits) return false
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits)
}

/**
 * A setting that cannot be used as written. Starting anyway on a default the operator did not choose
 * (a timeout typed "30s", SWITCHYARD_AGENT_NETWORKS=publc) would hide the mistake until it mattered,
 * so the service and the CLI refuse, naming every such variable (never a secret's value: only
 * settings that hold none are checked here).
 */
export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = []
  /** A whole number of at least `min`; unset or empty is the default. */
  const whole = (name: string, fallback: number, min: number): number => {
    const raw = env[name]?.trim()
    if (!raw) return fallback
    const n = Number(raw)
    if (/^\d+$/.test(raw) && Number.isSafeInteger(n) && n >= min) return n
    problems.push(`${name} must be a whole number${min > 0 ? ` of at least ${min}` : ''}, not "${raw}"`)
    return fallback
  }
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = env[name]?.trim()
    if (!raw) return fallback
    if ((allowed as readonly string[]).includes(raw)) return raw as T
    problems.push(`${name} must be ${allowed.join(' or ')}, not "${raw}"`)
    return fallback
  }

  const production = env.NODE_ENV === 'production' || env.SWITCHYARD_ENV === 'production'
  const host = env.HOST ?? '127.0.0.1'
  const port = whole('PORT', 3000, 0)
  const config: Config = {
    production,
    dataDir: path.resolve(env.SWITCHYARD_DATA_DIR ?? './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    encryptionKey: env.SWITCHYARD_ENCRYPTION_KEY || undefined,
    host,
    port,
    publicUrl: (
      env.SWITCHYARD_PUBLIC_URL ?? `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`
    ).replace(/\/+$/, ''),
    sandboxPort: whole('SWITCHYARD_SANDBOX_PORT', 4010, 0),
    sandboxUrl: env.SWITCHYARD_SANDBOX_URL?.replace(/\/+$/, '') || undefined,
    logLevel: env.LOG_LEVEL ?? 'info',
    adminEmail: env.SWITCHYARD_ADMIN_EMAIL?.trim() || undefined,
    metricsToken: env.SWITCHYARD_METRICS_TOKEN?.trim() || undefined,
    smtpUrl: env.SWITCHYARD_SMTP_URL?.trim() || undefined,
    mailFrom: env.SWITCHYARD_MAIL_FROM?.trim() || 'Switchyard <switchyard@localhost>',
    ssoDomains: [],
    trustedProxies: [],
    upstreamTimeoutMs: whole('SWITCHYARD_UPSTREAM_TIMEOUT_MS', DEFAULT_UPSTREAM_TIMEOUT_MS, 1),
    requestTimeoutMs: whole('SWITCHYARD_REQUEST_TIMEOUT_MS', 30_000, 1),
    headersTimeoutMs: whole('SWITCHYARD_HEADERS_TIMEOUT_MS', 10_000, 1),
    pollIntervalMs: whole('SWITCHYARD_POLL_INTERVAL_SECONDS', DEFAULT_POLL_INTERVAL_SECONDS, 1) * 1000,
    // On one person's machine (the embedded default) an agent on localhost is the usual case; a
    // production deployment is shared, and its internal network is not its users' to reach.
    agentNetworks: oneOf<AgentNetworks>(
      'SWITCHYARD_AGENT_NETWORKS',
      ['public', 'any'],
      production ? 'public' : 'any',
    ),
    // A run in its slot still waits on the database (its entries begun and ended, each a round trip
    // shared with other runs'), and with 8 slots the service's thread sat idle in those waits: 172
    // model runs/s on PostgreSQL against 253 with 32, where the rate levels off (48: 255, 64: 257),
    // and each run cost less CPU, its statements shared with more runs' (docs/scaling.md, "How many slots").
    runConcurrency: whole('SWITCHYARD_RUN_CONCURRENCY', 32, 1),
    runLeaseMs: whole('SWITCHYARD_RUN_LEASE_MS', DEFAULT_RUN_LEASE_MS, 1),
    retention: {
      runs: (() => {
        const plans = (name: string, which: 'maxAgeDays' | 'maxRuns') => {
          const fallback = Object.fromEntries(
            Object.entries(DEFAULT_RETENTION.runs).map(([plan, r]) => [plan, r[which]]),
          ) as Record<keyof RetentionSettings['runs'], number>
          const raw = env[name]?.trim()
          if (!raw) return fallback
          const parsed = perPlan(name, raw, fallback)
          if ('problem' in parsed) problems.push(parsed.problem)
          return 'value' in parsed ? parsed.value : fallback
        }
        const days = plans('SWITCHYARD_RUN_RETENTION_DAYS', 'maxAgeDays')
        const counts = plans('SWITCHYARD_RUN_RETENTION_COUNT', 'maxRuns')
        return Object.fromEntries(
          Object.keys(days).map((plan) => [
            plan,
            { maxAgeDays: days[plan as 'free'], maxRuns: counts[plan as 'free'] },
          ]),
        ) as RetentionSettings['runs']
      })(),
      eventDays: whole('SWITCHYARD_EVENT_RETENTION_DAYS', DEFAULT_RETENTION.eventDays, 1),
    },
    stepStoreMaxBytes: whole('SWITCHYARD_STEP_STORE_MAX_BYTES', DEFAULT_STEP_STORE_MAX_BYTES, 4096),
  }
  const issuer = env.SWITCHYARD_OIDC_ISSUER?.trim()
  if (issuer) {
    const clientId = env.SWITCHYARD_OIDC_CLIENT_ID?.trim()
    const clientSecret = env.SWITCHYARD_OIDC_CLIENT_SECRET?.trim()
    if (!clientId || !clientSecret)
      problems.push(
        'SWITCHYARD_OIDC_ISSUER needs SWITCHYARD_OIDC_CLIENT_ID and SWITCHYARD_OIDC_CLIENT_SECRET too',
      )
    else if (!/^https?:\/\//.test(issuer)) problems.push('SWITCHYARD_OIDC_ISSUER must be an http(s) URL')
    else if (production && !issuer.startsWith('https://'))
      problems.push('SWITCHYARD_OIDC_ISSUER must be an https URL in production')
    else
      config.oidc = {
        issuer: issuer.replace(/\/+$/, ''),
        clientId,
        clientSecret,
        name: env.SWITCHYARD_OIDC_NAME?.trim() || 'single sign-on',
      }
  }
  const proxies = parseTrustedProxies(env.SWITCHYARD_TRUST_PROXY ?? '')
  if ('problem' in proxies) problems.push(proxies.problem)
  else config.trustedProxies = proxies.proxies
  const domains = parseSsoDomains(env.SWITCHYARD_SSO_DOMAINS ?? '')
  if ('problem' in domains) problems.push(domains.problem)
  else config.ssoDomains = domains.rules
  // The scheme only: the URL may carry the mail account's password, which never goes into a message.
  if (config.smtpUrl && !/^smtps?:\/\//i.test(config.smtpUrl))
    problems.push('SWITCHYARD_SMTP_URL must start with smtp:// or smtps://')
  if (problems.length)
    throw new ConfigError(
      `Switchyard cannot use this configuration: ${problems.join('; ')} (docs/configuration.md)`,
    )
  return config
}
