/** Lower-cased words of a text, split on anything that is not a letter or digit. */
export function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
}

/** What one catalogue item is found by: lower-cased words per field, with the field's weight. */
export type Haystack = Array<{ words: string[]; weight: number }>

/**
 * The catalogue's search bar, for tool steps and triggers alike: every word must match (as a whole
 * word or a word's start) one of the item's fields. Whole words rank above prefixes, heavier fields
 * above lighter ones; `last` items (legacy steps) come after every other match.
 */
export function searchByWords<T>(
  items: Iterable<{ item: T; haystack: Haystack; last?: boolean; id: string }>,
  query: string,
): T[] | null {
  const words = wordsOf(query)
  if (words.length === 0) return null
  const scored: Array<{ item: T; score: number; last: boolean; id: string }> = []
  for (const { item, haystack, last, id } of items) {
    let score = 0
    for (const word of words) {
      let wordScore = 0
      for (const field of haystack) {
        if (field.words.includes(word)) wordScore += field.weight
        else if (field.words.some((w) => w.startsWith(word))) wordScore += field.weight / 2
      }
      if (wordScore === 0) {
        score = 0
        break
      }
      score += wordScore
    }
    if (score > 0) scored.push({ item, score, last: last ?? false, id })
  }
  return scored
    .sort((a, b) => Number(a.last) - Number(b.last) || b.score - a.score || a.id.localeCompare(b.id))
    .map((s) => s.item)
}
