import pino, { type Logger } from 'pino'

// Field names whose values pino censors, at the top of a log object and one level down. Secrets
// should never be handed to the logger at all; this is the second line of defence for headers,
// bodies and credential records.
const SECRET_FIELDS = [
  'authorization',
  'Authorization',
  'cookie',
  'access_token',
  'refresh_token',
  'client_secret',
  'api_key',
  'apiKey',
  'token',
  'secret',
  'password',
  'code_verifier',
  'credentials',
]

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((field) => `*.${field}`), // '*.' matches one level down only
]

// Query parameters whose values are harmless to log. Every other value is masked: a query string
// can carry one-time secrets under any name (OAuth 2.0 code and state, OAuth 1.0a oauth_token and
// oauth_verifier, a platform's key), and an allow-list cannot miss a new one (docs/security.md).
const LOGGED_QUERY_PARAMETERS = new Set([
  'q',
  'platform',
  'limit',
  'cursor',
  'connected',
  'error',
  'error_description',
  'oauth_problem',
  'subdomain',
])
// The intake's address is a bearer of its own: anyone who has it may send deliveries to be checked
// (issue 22, §5, where one log carried an address in full on 294 lines).
const SECRET_PATH = /(\/oauth\/start\/|\/hooks\/)[^/?#]+/

/** A URL fit for a log line: path-borne tokens and every query value not known to be harmless are masked. */
export function redactUrl(url: string): string {
  const queryAt = url.indexOf('?')
  const path = (queryAt < 0 ? url : url.slice(0, queryAt)).replace(SECRET_PATH, '$1[redacted]')
  if (queryAt < 0) return path
  const query = url
    .slice(queryAt + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=')
      const name = equals < 0 ? pair : pair.slice(0, equals)
      if (LOGGED_QUERY_PARAMETERS.has(safeDecode(name))) return pair
      if (equals < 0) return '[redacted]' // a bare word may be the secret itself
      // Names help diagnosis; a long one may be a secret used as a name.
      return `${name.length > 64 ? '[redacted]' : name}=[redacted]`
    })
  return `${path}?${query.join('&')}`
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '))
  } catch {
    return text
  }
}

export function createLogger(level = 'info', destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: {
        req: (req: { method: string; url: string; ip?: string }) => ({
          method: req.method,
          url: redactUrl(req.url),
          ip: req.ip,
        }),
      },
    },
    destination,
  )
}

export type { Logger }
