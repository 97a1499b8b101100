import { z } from 'zod'

export const SUBDOMAIN_PATTERN = /^[a-z0-9][a-z0-9-]*$/
const MAX_SUBDOMAIN_LENGTH = 63 // one DNS label

/**
 * People paste whatever is in their address bar. We trim what is unambiguous — a scheme, the
 * `.zendesk.com` suffix, a trailing path, surrounding spaces, capitals — and refuse anything else
 * with a message that says what to type. `acme.example.com` is refused, not guessed at: a host
 * mapped domain is not the Zendesk subdomain.
 */
export const Subdomain = z
  .string({ error: 'enter the account subdomain, the part before .zendesk.com' })
  .transform((raw) =>
    raw
      .trim()
      .toLowerCase()
      .replace(/^https?:\/\//, '')
      .replace(/[/?#].*$/, '')
      .replace(/\.zendesk\.com\.?$/, ''),
  )
  .pipe(
    z
      .string()
      .min(1, 'enter the account subdomain, the part before .zendesk.com')
      .max(MAX_SUBDOMAIN_LENGTH, `a subdomain has at most ${MAX_SUBDOMAIN_LENGTH} characters`)
      .regex(
        SUBDOMAIN_PATTERN,
        'use only the part before .zendesk.com: lower-case letters, digits and hyphens (for example acme)',
      ),
  )
