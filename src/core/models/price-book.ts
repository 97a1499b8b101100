import { z } from 'zod'
import type { User } from '../access/users.ts'
import { AppError, invalidInput } from '../errors.ts'
import type { Db } from '../store/database.ts'
import { parseOrThrow } from '../validation.ts'
import { costWith, PRICE_TABLE_VERSION, shippedPrices, type Price } from './prices.ts'

/** One model's price as it holds now, and where it comes from. */
export interface ModelPriceView {
  model: string
  input_per_mtok: number
  output_per_mtok: number
  source: 'shipped' | 'admin'
}

export interface PriceTableView {
  /** What a run's model calls name: the shipped table's version, and the admin's after a `+`. */
  version: string
  shipped_version: string
  /** The admin's version (0: no change to the shipped table). */
  override_version: number
  prices: ModelPriceView[]
}

/** A price in US dollars per million tokens. */
const perMTok = (what: string) =>
  z
    .number({ error: `give the ${what} price in US dollars per million tokens` })
    .min(0, 'a price is 0 or more')
    .max(100_000, 'at most 100,000 dollars per million tokens')

const PriceInput = z.strictObject({
  input_per_mtok: perMTok('input'),
  output_per_mtok: perMTok('output'),
})

const PricesChange = z.strictObject({
  prices: z.record(
    z.string().min(1, 'name the model').max(200, 'at most 200 characters'),
    PriceInput.nullable(),
    {
      error:
        'give the prices as an object of model names, each with input_per_mtok and output_per_mtok, or null to go back to the shipped price',
    },
  ),
})

/** A model's price in a table, never a property every object has (a model named "constructor"). */
const own = (table: Readonly<Record<string, Price>>, model: string): Price | undefined =>
  Object.hasOwn(table, model) ? table[model] : undefined

/** How a run names the prices it was counted with. */
export const priceVersionLabel = (overrideVersion: number): string =>
  overrideVersion ? `${PRICE_TABLE_VERSION}+${overrideVersion}` : PRICE_TABLE_VERSION

/**
 * The prices model calls are counted with (docs/model-agents.md, "Budget"): the table Switchyard
 * ships (prices.ts) under an admin's overrides. Each admin change is a new version holding the whole
 * set, never edited; a run fixes the version it started with, so a change of price never rewrites
 * what a run cost or moves its budget halfway. Versions are immutable, so they are cached for good;
 * which one is current is cached briefly (a write here is seen at once in this process).
 */
export class PriceBook {
  private readonly versions = new Map<number, Record<string, Price>>([[0, {}]])
  private latest: { version: number; until: number } | undefined

  constructor(
    private readonly db: Db,
    private readonly ttlMs = 5_000,
  ) {}

  /** The admin's version in force now (0 for the shipped table alone). */
  async current(): Promise<number> {
    if (this.latest && this.latest.until > Date.now()) return this.latest.version
    const row = await this.db
      .selectFrom('price_overrides')
      .select('version')
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst()
    const version = row?.version ?? 0
    this.latest = { version, until: Date.now() + this.ttlMs }
    return version
  }

  /** The cost of one call with the prices of a version, null for a model with no price there. */
  async costAt(
    version: number,
    model: string,
    usage: { inputTokens: number; outputTokens: number },
  ): Promise<number | null> {
    const price = own(await this.overridesAt(version), model) ?? own(shippedPrices, model)
    return price ? costWith(price, usage) : null
  }

  async view(version?: number): Promise<PriceTableView> {
    const v = version ?? (await this.current())
    const overrides = await this.overridesAt(v)
    const models = [...new Set([...Object.keys(shippedPrices), ...Object.keys(overrides)])].sort()
    return {
      version: priceVersionLabel(v),
      shipped_version: PRICE_TABLE_VERSION,
      override_version: v,
      prices: models.map((model) => {
        const p = own(overrides, model) ?? own(shippedPrices, model)!
        return {
          model,
          input_per_mtok: p.inputPerMTok,
          output_per_mtok: p.outputPerMTok,
          source: own(overrides, model) ? 'admin' : 'shipped',
        }
      }),
    }
  }

  /**
   * An admin's change: prices to set, and `null` to go back to the shipped price of a model. A new
   * version holds the whole set as changed; two admins changing at once both land, one after the other.
   */
  async change(user: User, raw: unknown): Promise<PriceTableView> {
    if (user.role !== 'admin') throw new AppError('forbidden', 'only an admin changes the price table')
    const { prices } = parseOrThrow(PricesChange, raw)
    if (Object.keys(prices).length === 0)
      throw invalidInput([{ field: 'prices', message: 'name at least one model to price' }])
    for (let attempt = 0; ; attempt++) {
      const version = await this.freshCurrent()
      const next = { ...(await this.overridesAt(version)) }
      for (const [model, price] of Object.entries(prices))
        if (price) next[model] = { inputPerMTok: price.input_per_mtok, outputPerMTok: price.output_per_mtok }
        else delete next[model]
      const inserted = await this.db
        .insertInto('price_overrides')
        .values({ version: version + 1, prices: JSON.stringify(next), created_by: user.id })
        .onConflict((oc) => oc.column('version').doNothing())
        .returning('version')
        .executeTakeFirst()
      if (inserted) {
        this.versions.set(version + 1, next)
        this.latest = { version: version + 1, until: Date.now() + this.ttlMs }
        return this.view(version + 1)
      }
      // Another admin's change took that version number: build on theirs.
      if (attempt >= 5)
        throw new AppError('conflict', 'the price table is being changed by someone else; try again')
    }
  }

  private async freshCurrent(): Promise<number> {
    this.latest = undefined
    return this.current()
  }

  private async overridesAt(version: number): Promise<Record<string, Price>> {
    const known = this.versions.get(version)
    if (known) return known
    const row = await this.db
      .selectFrom('price_overrides')
      .select('prices')
      .where('version', '=', version)
      .executeTakeFirst()
    const prices = (row?.prices ?? {}) as Record<string, Price>
    if (row) this.versions.set(version, prices)
    return prices
  }
}
