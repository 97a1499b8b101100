// The text of a list field (labels, members) is comma-separated ids; a picker searches with the
// entry being typed, the last one, and replaces it with the chosen id.

/** The entries of a comma-separated value, trimmed, empty ones left out. */
export function entriesOf(text: string): string[] {
  return text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)
}

/** The entry being typed: what follows the last comma. */
export function currentEntry(text: string): string {
  return text.slice(text.lastIndexOf(',') + 1).trim()
}

/**
 * The value with the entry being typed replaced by `chosen`, ready for the next one. An id already
 * in the list is not added twice.
 */
export function withEntry(text: string, chosen: string): string {
  const done = entriesOf(text.slice(0, text.lastIndexOf(',') + 1))
  const entries = done.includes(chosen) ? done : [...done, chosen]
  return `${entries.join(', ')}, `
}
