import { invalidInput } from '../errors.ts'

export const MAX_ENDPOINT_LENGTH = 2048

// RFC 3986 pchar plus "/", minus "@" (a classic userinfo trick, banned outright: docs/security.md).
const PATH_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=:%/]*$/
// eslint-disable-next-line no-control-regex
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f]/
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/

/** Where a platform's API paths start: a fixed prefix (`/api/v2/`) or a pattern (`/v13/`, any version). */
export type PathPrefix = string | RegExp

export function startsWithPrefix(path: string, prefix: PathPrefix): boolean {
  return typeof prefix === 'string' ? path.startsWith(prefix) : prefix.test(path) && path.search(prefix) === 0
}

export function describePrefix(prefix: PathPrefix): string {
  if (typeof prefix === 'string') return prefix
  // A pattern such as ^\/v\d{1,2}\/ reads as /v{N}/.
  return prefix.source
    .replace(/^\^/, '')
    .replace(/\\d(\{[\d,]+\}|\+)/g, '{N}')
    .replace(/\\\//g, '/')
}

export interface SafeEndpoint {
  /** The validated path, still percent-encoded as given. */
  path: string
  /** Query parameters found after "?", re-serialised by URLSearchParams. */
  query: URLSearchParams
}

/**
 * Accepts only a relative path under the platform's prefix. Anything that could make the request
 * leave that prefix or that host is refused before any byte is sent: traversal (raw or encoded),
 * encoded separators, empty segments, userinfo, fragments, backslashes, control characters,
 * non-ASCII look-alikes and absolute or protocol-relative URLs.
 */
export function parseEndpoint(
  raw: unknown,
  prefix: PathPrefix,
  field = 'endpoint',
  help?: { prefix: string; example: string },
): SafeEndpoint {
  const refuse = (message: string) => invalidInput([{ field, message }])
  if (typeof raw !== 'string' || raw.length === 0) throw refuse('must be a non-empty string')
  if (raw.length > MAX_ENDPOINT_LENGTH) throw refuse(`must be at most ${MAX_ENDPOINT_LENGTH} characters`)
  if (CONTROL.test(raw)) throw refuse('must not contain control characters')
  if (raw.includes('#')) throw refuse('must not contain a fragment (#)')
  if (raw.includes('\\')) throw refuse('must not contain backslashes')

  const questionMark = raw.indexOf('?')
  const path = questionMark === -1 ? raw : raw.slice(0, questionMark)
  const search = questionMark === -1 ? '' : raw.slice(questionMark + 1)

  if (!startsWithPrefix(path, prefix)) {
    throw refuse(
      help
        ? `start the path with ${help.prefix}, for example ${help.example}`
        : `must be a relative path starting with ${describePrefix(prefix)}`,
    )
  }
  if (CONTROL_OR_SPACE.test(path)) throw refuse('the path must not contain spaces; percent-encode them')
  if (!PATH_CHARS.test(path))
    throw refuse('the path contains characters that are not allowed (such as @ or non-ASCII)')
  if (path.includes('//')) throw refuse('the path must not contain empty segments (//)')

  for (const segment of path.split('/').slice(1)) {
    // Without a percent sign there is nothing to decode, and PATH_CHARS has already ruled out what
    // the checks on decoded text look for.
    const encoded = segment.includes('%')
    let decoded = segment
    if (encoded) {
      try {
        decoded = decodeURIComponent(segment)
      } catch {
        throw refuse('the path has a malformed percent-encoding')
      }
    }
    if (decoded === '.' || decoded === '..') throw refuse('the path must not contain . or .. segments')
    // Encoded separators, dots, percent signs (double encoding) and anything outside printable ASCII
    // are how traversal hides from the checks above; legitimate API paths never need them.
    if (encoded && (/[/\\%?#@]/.test(decoded) || /[^\u0021-\u007e]/.test(decoded))) {
      throw refuse('the path must not encode separators, %, ?, #, @ or non-printable characters')
    }
  }
  return { path, query: new URLSearchParams(search) }
}

/**
 * Builds the final URL and asserts again, after WHATWG parsing, that it stayed on the platform's
 * origin and under its prefix. This catches anything the parser normalises differently from us.
 * The path is appended to the base as text, never resolved against it, so nothing in it can name
 * another host, and the whole URL is parsed once.
 */
export function pinnedUrl(baseUrl: string, prefix: PathPrefix, path: string, query?: URLSearchParams): URL {
  const { origin, basePath } = parsedBase(baseUrl)
  const search = query?.toString()
  const url = new URL(`${origin}${basePath}${path}${search ? `?${search}` : ''}`)
  const underBase = url.pathname.startsWith(`${basePath}/`)
  if (
    url.origin !== origin ||
    url.username ||
    url.password ||
    url.hash ||
    !underBase ||
    !startsWithPrefix(url.pathname.slice(basePath.length), prefix)
  ) {
    throw invalidInput([
      { field: 'endpoint', message: `must stay under ${describePrefix(prefix)} on the platform's host` },
    ])
  }
  return url
}

// A process talks to a handful of base URLs (one per platform account): each is parsed once.
const MAX_BASES = 1000
const bases = new Map<string, { origin: string; basePath: string }>()

function parsedBase(baseUrl: string): { origin: string; basePath: string } {
  let parsed = bases.get(baseUrl)
  if (!parsed) {
    const base = new URL(baseUrl)
    parsed = { origin: base.origin, basePath: base.pathname.replace(/\/+$/, '') }
    if (bases.size >= MAX_BASES) bases.clear()
    bases.set(baseUrl, parsed)
  }
  return parsed
}
