import type { App } from './model.ts'

/**
 * An app's allowed origins decide where /1/authorize may send a token and where OAuth 1.0a
 * may call back. A pattern is an exact origin (`https://app.example`) or an origin with any
 * port (`http://localhost:*`, which also allows no port); `*` allows every origin.
 */
export function originAllowed(app: App, url: string): boolean {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false
  return app.allowedOrigins.some((pattern) => {
    if (pattern === '*') return true
    const anyPort = pattern.endsWith(':*')
    let allowed: URL
    try {
      allowed = new URL(anyPort ? pattern.slice(0, -2) : pattern)
    } catch {
      return false
    }
    if (allowed.protocol !== parsed.protocol || allowed.hostname !== parsed.hostname) return false
    return anyPort || allowed.port === parsed.port
  })
}

export function validOriginPattern(pattern: string): boolean {
  if (pattern === '*') return true
  try {
    const url = new URL(pattern.endsWith(':*') ? pattern.slice(0, -2) : pattern)
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.pathname === '/' &&
      !url.search &&
      !url.hash
    )
  } catch {
    return false
  }
}
