/**
 * `fields` arguments: `all` or a comma-separated list. Trello always returns `id`; unknown
 * names are ignored (as Trello does with fields it does not know).
 */
export function pickFields<T extends Record<string, unknown>>(
  object: T,
  fields: string | undefined,
  always: string[] = ['id'],
): Record<string, unknown> {
  if (fields === undefined || fields === 'all') return object
  const wanted = fields
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean)
  const out: Record<string, unknown> = {}
  for (const name of always) if (name in object) out[name] = object[name]
  for (const name of wanted) if (name in object) out[name] = object[name]
  return out
}
