// Pure pieces of the pop-up authorization flow (platforms whose `authorize_in` is `popup`, like
// Vercel). The opener opens a named pop-up, the pop-up walks through the platform's pages, and the
// OAuth callback lands it on /integrations?connected=… (or ?error=…). There the app, seeing a
// same-origin opener, hands the result over with postMessage and closes the pop-up.
import { parseApplies, parseTroubleshooting, withQuery } from './url-state.ts'

export const CONNECT_RESULT_TYPE = 'switchyard:connect-result'
export const POPUP_NAME = 'switchyard-connect'
export const POPUP_FEATURES = 'popup,width=600,height=720'

export interface ConnectResultMessage {
  type: typeof CONNECT_RESULT_TYPE
  connected?: string
  error?: string
  code?: string
  troubleshooting?: string[]
  applies?: number[]
}

/**
 * The message a pop-up sends its opener, read from the callback's query; null when the query
 * carries no result (neither `connected` nor `error`).
 */
export function buildConnectResultMessage(search: string): ConnectResultMessage | null {
  const params = new URLSearchParams(search)
  const connected = params.get('connected')
  const error = params.get('error')
  if (!connected && error === null) return null
  const message: ConnectResultMessage = { type: CONNECT_RESULT_TYPE }
  if (connected) message.connected = connected
  if (error !== null) {
    message.error = error
    const code = params.get('code')
    if (code) message.code = code
    const troubleshooting = parseTroubleshooting(params.get('troubleshooting'))
    message.troubleshooting = troubleshooting
    message.applies = parseApplies(params.get('applies'), troubleshooting.length)
  }
  return message
}

const MAX_TEXT = 4000
const MAX_RULES = 50

/**
 * Reads a received message's data, keeping only well-typed members; null for anything that is not
 * a connect result (other scripts and extensions post messages too).
 */
export function parseConnectResultMessage(data: unknown): ConnectResultMessage | null {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return null
  const d = data as Record<string, unknown>
  if (d.type !== CONNECT_RESULT_TYPE) return null
  const text = (v: unknown) => (typeof v === 'string' ? v.slice(0, MAX_TEXT) : undefined)
  const connected = text(d.connected)
  const error = text(d.error)
  if (!connected && error === undefined) return null
  const message: ConnectResultMessage = { type: CONNECT_RESULT_TYPE }
  if (connected) message.connected = connected
  if (error !== undefined) {
    message.error = error
    const code = text(d.code)
    if (code) message.code = code
    const troubleshooting = Array.isArray(d.troubleshooting)
      ? d.troubleshooting
          .filter((t): t is string => typeof t === 'string' && t.trim() !== '')
          .slice(0, MAX_RULES)
          .map((t) => t.slice(0, MAX_TEXT))
      : []
    message.troubleshooting = troubleshooting
    message.applies = Array.isArray(d.applies)
      ? d.applies.filter((n): n is number => Number.isInteger(n) && n >= 0 && n < troubleshooting.length)
      : []
  }
  return message
}

/** Only messages from this app's own origin are believed. */
export function isTrustedOrigin(eventOrigin: string, ownOrigin: string): boolean {
  return eventOrigin !== 'null' && eventOrigin !== '' && eventOrigin === ownOrigin
}

/** The connect result carried by a message event, or null when the event is not one to believe. */
export function connectResultFromEvent(
  event: { origin: string; data: unknown },
  ownOrigin: string,
): ConnectResultMessage | null {
  return isTrustedOrigin(event.origin, ownOrigin) ? parseConnectResultMessage(event.data) : null
}

/** The address that shows a result on the integrations page, exactly as the redirect flow lands. */
export function connectResultPath(message: ConnectResultMessage): string {
  if (message.error !== undefined) {
    return withQuery('/integrations', {
      error: message.error || ' ', // an empty message still has to show the error banner
      code: message.code,
      troubleshooting: message.troubleshooting?.length ? JSON.stringify(message.troubleshooting) : undefined,
      applies: message.applies?.length ? JSON.stringify(message.applies) : undefined,
    })
  }
  return withQuery('/integrations', { connected: message.connected })
}

/** The opener of this window when it is on the same origin (reading another origin's location throws). */
export function sameOriginOpener(win: { opener: unknown }, ownOrigin: string): Window | null {
  const opener = win.opener as Window | null
  if (!opener || typeof opener !== 'object') return null
  try {
    if (opener.closed) return null
    return opener.location.origin === ownOrigin ? opener : null
  } catch {
    return null
  }
}

interface RelayWindow {
  location: { origin: string; pathname: string; search: string }
  opener: unknown
  close: () => void
}

/**
 * In a pop-up that the OAuth callback has brought back to /integrations?connected=… (or ?error=…),
 * hands the result to the same-origin opener and closes the pop-up. Returns whether it did; when it
 * did not (no opener, another origin, no result), the app simply renders in this window.
 */
export function relayConnectResultToOpener(win: RelayWindow): boolean {
  const path = win.location.pathname.replace(/\/+$/, '')
  if (path !== '/integrations' && path !== '') return false
  const message = buildConnectResultMessage(win.location.search)
  if (!message) return false
  const opener = sameOriginOpener(win, win.location.origin)
  if (!opener) return false
  try {
    opener.postMessage(message, win.location.origin)
  } catch {
    return false
  }
  win.close()
  return true
}
