// Pure helpers for connecting with pasted credentials (Trello's API key plus token) and for showing
// server messages that carry addresses (a connect_failed detail names the token page).
import type { CredentialField, Platform } from './api.ts'

export type ConnectMethod = 'authorize' | 'credentials'

/**
 * The ways a platform can be connected, in the order they are offered. Platforms that predate
 * `connect_methods` connect through their authorization page; `credentials` is only offered when
 * the platform also says which values to paste.
 */
export function connectMethodsOf(platform: {
  // Read as a server of any age may send it: absent, or with methods this client does not know.
  connect_methods?: readonly string[]
  credential_fields?: Platform['credential_fields']
}): ConnectMethod[] {
  const listed: readonly string[] = Array.isArray(platform.connect_methods)
    ? platform.connect_methods
    : ['authorize']
  const methods: ConnectMethod[] = []
  if (listed.includes('authorize')) methods.push('authorize')
  if (listed.includes('credentials') && (platform.credential_fields?.length ?? 0) > 0)
    methods.push('credentials')
  return methods.length > 0 ? methods : ['authorize']
}

/** A Trello API key: 32 hexadecimal characters (surrounding spaces from a paste are ignored). */
export function isPlausibleKey(value: string | undefined): boolean {
  return /^[0-9a-f]{32}$/i.test((value ?? '').trim())
}

/**
 * The query for `GET /v1/platforms/{id}/credential-help`, or null while there is nothing worth
 * asking about. Only the key is ever sent (the server needs nothing else to build the token page);
 * the token and any other pasted value stay out of URLs.
 */
export function credentialHelpQuery(values: Readonly<Record<string, string>>): string | null {
  const key = values.key?.trim()
  if (!key || !isPlausibleKey(key)) return null
  return new URLSearchParams({ key }).toString()
}

/** An empty value for each credential field. */
export function emptyCredentials(fields: readonly Pick<CredentialField, 'name'>[]): Record<string, string> {
  return Object.fromEntries(fields.map((f) => [f.name, '']))
}

/** The values to send: only the platform's fields, each trimmed (pastes often carry a newline). */
export function credentialsToSend(
  fields: readonly Pick<CredentialField, 'name'>[],
  values: Readonly<Record<string, string>>,
): Record<string, string> {
  return Object.fromEntries(fields.map((f) => [f.name, (values[f.name] ?? '').trim()]))
}

/** The address as a link target when it is an absolute http(s) URL; anything else is refused. */
export function safeHttpUrl(raw: string | null | undefined): string | null {
  if (!raw) return null
  try {
    const url = new URL(raw)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null
  } catch {
    return null
  }
}

export type TextPart = { text: string } | { text: string; url: string }

const URL_IN_TEXT = /https?:\/\/[^\s<>"'`]+/g
const TRAILING_PUNCTUATION = /[.,;:!?'"*]$/

/** Drops what a sentence puts after an address: `…/authorize?key=abc.` or `(see https://x)`. */
function trimUrlEnd(candidate: string): string {
  let url = candidate
  for (;;) {
    if (TRAILING_PUNCTUATION.test(url)) url = url.slice(0, -1)
    else if (url.endsWith(')') && count(url, '(') < count(url, ')')) url = url.slice(0, -1)
    else if (url.endsWith(']') && count(url, '[') < count(url, ']')) url = url.slice(0, -1)
    else return url
  }
}

const count = (s: string, c: string) => s.split(c).length - 1

/**
 * Splits text into plain parts and http(s) addresses, so a message such as "Create a token at
 * https://… and paste that instead." can show the address as a link. Joining every part's text
 * gives back the input.
 */
export function splitLinks(text: string): TextPart[] {
  const parts: TextPart[] = []
  let last = 0
  for (const match of text.matchAll(URL_IN_TEXT)) {
    const start = match.index
    const candidate = trimUrlEnd(match[0])
    const url = safeHttpUrl(candidate)
    // "https://" alone (or an address the URL parser refuses) stays text.
    if (!url) continue
    if (start > last) parts.push({ text: text.slice(last, start) })
    parts.push({ text: candidate, url })
    last = start + candidate.length
  }
  if (last < text.length) parts.push({ text: text.slice(last) })
  return parts
}
