/**
 * The price table Switchyard ships, versioned (docs/model-agents.md, "Budget"): US dollars per
 * million tokens, from the providers' public price pages as of the version date. An admin may
 * override any model's price (price-book.ts); a run counts with the version in force when it
 * started, and each model call's timeline entry names it, so a later price change never rewrites
 * what a run cost. A model missing from the table costs nothing here: tokens and model calls still
 * bound it.
 */
export const PRICE_TABLE_VERSION = '2026-11-01'

export interface Price {
  inputPerMTok: number
  outputPerMTok: number
}

export const shippedPrices: Readonly<Record<string, Price>> = {
  // The sandbox's models cost something, so budget tests and the worked example show a cost.
  'sandbox-model': { inputPerMTok: 1, outputPerMTok: 2 },
  'sandbox-model-mini': { inputPerMTok: 0.1, outputPerMTok: 0.2 },
  'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 },
  'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6 },
  'gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8 },
  'gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 },
  'gpt-4.1-nano': { inputPerMTok: 0.1, outputPerMTok: 0.4 },
  'claude-sonnet-4-5': { inputPerMTok: 3, outputPerMTok: 15 },
  'claude-sonnet-4-0': { inputPerMTok: 3, outputPerMTok: 15 },
  'claude-opus-4-1': { inputPerMTok: 15, outputPerMTok: 75 },
  'claude-3-5-haiku-latest': { inputPerMTok: 0.8, outputPerMTok: 4 },
}

/** The cost of one call in US dollars, rounded to a millionth of a cent so sums stay exact. */
export function costWith(price: Price, usage: { inputTokens: number; outputTokens: number }): number {
  const dollars = (usage.inputTokens * price.inputPerMTok + usage.outputTokens * price.outputPerMTok) / 1e6
  return Math.round(dollars * 1e8) / 1e8
}
