import type { User } from '../access/users.ts'
import { invalidInput, notFound } from '../errors.ts'
import type { ToolRegistry } from './catalog.ts'
import type { PlatformDefinition } from '../platforms/types.ts'
import { TtlCache } from '../ttl-cache.ts'
import type { FieldOption, OptionsPage, OptionsQuery, OptionsSource, ToolContext } from './define.ts'
import { integrationRefOf, type StepContexts } from './step-context.ts'

const MAX_QUERY_LENGTH = 200
const MAX_DEPENDENCY_LENGTH = 200

export interface OptionsRequest {
  integration: unknown
  q?: unknown
  cursor?: unknown
  /** Every other query parameter: the values of the fields the options depend on. */
  values: Record<string, unknown>
}

/**
 * Lists the options of a tool step's id field (docs/tool-options.md). It takes the same road as a
 * run (ownership check, fresh token, the credential's budget) so a picker can never reach further
 * than the step itself could.
 */
export class ToolOptions {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly contexts: StepContexts,
  ) {}

  async list(
    user: User,
    toolId: string,
    field: string,
    request: OptionsRequest,
    agentId: string = user.id,
  ): Promise<OptionsPage> {
    const registered = this.registry.get(toolId)
    if (!registered) throw notFound(`tool ${toolId}`)
    return this.listFrom(
      user,
      { platform: registered.platform, title: registered.tool.title, sources: registered.tool.options },
      field,
      request,
      agentId,
    )
  }

  /** The same for any declaration with option sources: a tool step's input or a trigger's configuration. */
  async listFrom(
    user: User,
    owner: { platform: PlatformDefinition; title: string; sources?: Record<string, OptionsSource> },
    field: string,
    request: OptionsRequest,
    agentId: string = user.id,
  ): Promise<OptionsPage> {
    const { platform, title } = owner
    const source = owner.sources?.[field]
    if (!source) {
      const fields = Object.keys(owner.sources ?? {})
      throw invalidInput([
        {
          field,
          message: fields.length
            ? `has no options; ${title} has options for ${fields.join(', ')}`
            : `has no options; ${title} has no fields with options`,
        },
      ])
    }
    const ref = integrationRefOf(platform, request.integration)
    const query: OptionsQuery = { q: textParam('q', request.q, MAX_QUERY_LENGTH), depends: {} }
    const cursor = textParam('cursor', request.cursor, MAX_QUERY_LENGTH)
    if (cursor) query.cursor = cursor
    for (const name of source.dependsOn ?? []) {
      const value = textParam(name, request.values[name], MAX_DEPENDENCY_LENGTH)
      if (!value)
        throw invalidInput([
          { field: name, message: `choose the ${name} first: the options of ${field} depend on it` },
        ])
      query.depends[name] = value
    }

    const { ctx } = await this.contexts.open(user, platform, ref, agentId)
    return source.list(ctx, query)
  }
}

function textParam(field: string, value: unknown, max: number): string {
  if (value === undefined || value === null) return ''
  if (typeof value !== 'string') throw invalidInput([{ field, message: 'give it once, as text' }])
  const text = value.trim()
  if (text.length > max) throw invalidInput([{ field, message: `must be at most ${max} characters` }])
  return text
}

const DEFAULT_PAGE_SIZE = 50

/**
 * Filters and pages options held in memory, for platforms whose listing has neither search nor
 * pages (Trello's boards and lists): every word of q must appear in the label or description,
 * or be the whole value; the cursor is an offset.
 */
export function pageOptions(
  options: FieldOption[],
  query: OptionsQuery,
  pageSize = DEFAULT_PAGE_SIZE,
): OptionsPage {
  const words = query.q.toLowerCase().split(/\s+/).filter(Boolean)
  const matching =
    words.length === 0
      ? options
      : options.filter((o) => {
          const text = `${o.label} ${o.description ?? ''}`.toLowerCase()
          const value = String(o.value).toLowerCase()
          return words.every((w) => value === w || text.includes(w))
        })
  const offset = offsetOf(query.cursor)
  const page = matching.slice(offset, offset + pageSize)
  return {
    options: page,
    next_cursor: offset + pageSize < matching.length ? String(offset + pageSize) : null,
  }
}

function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0
  if (!/^\d{1,9}$/.test(cursor))
    throw invalidInput([{ field: 'cursor', message: 'must be a next_cursor returned by these options' }])
  return Number(cursor)
}

/** How long a listing fetched when a picker opened serves the typing and paging that follow. */
const LISTING_TTL_MS = 30_000
const listings = new TtlCache<Promise<FieldOption[]>>(LISTING_TTL_MS, 1_000)

/**
 * An options source for a listing that has neither search nor pages: `load` fetches it whole, and q
 * and the cursor are applied in memory (pageOptions). Fetching it whole again for every keystroke
 * would spend the account's rate budget on typing (a listing of every board's cards can be a
 * request per board), so the listing fetched when a picker opens (no q, no cursor) is kept for 30 s per
 * integration and serves the searches and pages that follow. Opening a picker fetches afresh.
 */
export function wholeListing(
  name: string,
  load: (ctx: ToolContext, depends: Record<string, string>) => Promise<FieldOption[]>,
  dependsOn?: string[],
): OptionsSource {
  return {
    ...(dependsOn ? { dependsOn } : {}),
    async list(ctx, query) {
      const key = [ctx.integration.id, name, ...Object.values(query.depends)].join('\u0000')
      const opening = !query.q && query.cursor === undefined
      let listing = opening ? undefined : listings.get(key)
      if (!listing) {
        const loading = load(ctx, query.depends)
        listing = loading
        listings.set(key, loading)
        // A failed fetch is not kept: the next keystroke tries again.
        loading.catch(() => listings.deleteWhere((kept) => kept === loading))
      }
      return pageOptions(await listing, query)
    },
  }
}
