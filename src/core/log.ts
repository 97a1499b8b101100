import pino, { type Logger } from 'pino'

// Field names whose values pino censors, at the top of a log object and one level down. Secrets
// should never be handed to the logger at all; this is the second line of defence for headers,
// bodies and credential records.
const SECRET_FIELDS = [
  'authorization', 'Authorization', 'cookie', 'access_token', 'refresh_token', 'client_secret',
  'api_key', 'apiKey', 'token', 'secret', 'password', 'code_verifier', 'credentials',
]

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((field) => `*.${field}`), // '*.' matches one level down only
]

// Query parameters that carry one-time secrets (OAuth codes, state) and path-borne tokens.
const SECRET_QUERY = /([?&](?:code|state|token|access_token|refresh_token|api_key|key|client_secret)=)[^&#]*/gi
const SECRET_PATH = /(\/oauth\/start\/)[^/?#]+/

/** A URL fit for a log line: one-time codes and tokens in it are masked. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_PATH, '$1[redacted]').replace(SECRET_QUERY, '$1[redacted]')
}

export function createLogger(level = 'info', destination?: pino.DestinationStream): Logger {
  return pino({
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, url: redactUrl(req.url), ip: req.ip }),
    },
  }, destination)
}

export type { Logger }
