/**
 * The price table Switchyard ships, versioned (docs/model-agents.md, "Budgets"): US dollars per
 * million tokens, from the providers' public price pages as of the version date. A run's cost is
 * counted with the table of the version it started with being this one, and each model call's
 * timeline entry names the version, so a later price change never rewrites what a run cost.
 * A model missing from the table costs nothing here and its entry says `unpriced`: tokens and
 * model calls still bound it.
 */
export const PRICE_TABLE_VERSION = '2026-11-01'

export interface Price {
  inputPerMTok: number
  outputPerMTok: number
}

const PRICES: Record<string, Price> = {
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

export function priceOf(model: string): Price | undefined {
  return PRICES[model]
}

/** The cost of one call in US dollars, rounded to a millionth of a cent so sums stay exact. */
export function costOf(model: string, usage: { inputTokens: number; outputTokens: number }): number | null {
  const price = priceOf(model)
  if (!price) return null
  const dollars = (usage.inputTokens * price.inputPerMTok + usage.outputTokens * price.outputPerMTok) / 1e6
  return Math.round(dollars * 1e8) / 1e8
}
