import type { FieldError } from './api.ts'

export interface GroupedFieldErrors {
  /** Messages keyed by the top-level form field they name (`fields.subdomain` → `subdomain`). */
  byField: Record<string, string[]>
  /** Errors that name no field of the form (shown with the form as a whole). */
  other: FieldError[]
}

/**
 * Sorts a problem's `errors` onto the form fields they name. Server field paths carry a prefix for
 * the body member they belong to (`fields.` for connection fields, `input.` for tool input); nested
 * paths (`input.tags.0`, `input.via.channel`) belong to their top-level field.
 */
export function groupFieldErrors(
  errors: readonly FieldError[] | undefined,
  prefix: string,
  knownFields: readonly string[],
): GroupedFieldErrors {
  const byField: Record<string, string[]> = {}
  const other: FieldError[] = []
  const known = new Set(knownFields)
  for (const e of errors ?? []) {
    const name = topLevelField(e.field, prefix)
    if (name !== undefined && known.has(name)) (byField[name] ??= []).push(e.message)
    else other.push(e)
  }
  return { byField, other }
}

export function topLevelField(path: string, prefix: string): string | undefined {
  const p = prefix === '' || prefix.endsWith('.') ? prefix : `${prefix}.`
  if (!path.startsWith(p)) return undefined
  const rest = path.slice(p.length)
  // Paths may be dotted (`a.b.0`) or bracketed (`a[0]`); either way the first segment names the field.
  const first = rest.split(/[.[]/, 1)[0]
  return first || undefined
}
