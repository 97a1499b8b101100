import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { parseOrThrow } from '../../core/validation.ts'
import type { Accounts } from './accounts.ts'
import { SEARCH_TOOL, toolNameOf, type McpCatalog } from './catalog.ts'

const SearchInput = z
  .object({
    query: z
      .string()
      .trim()
      .min(1, 'give words to look for, e.g. "create ticket" or "boards"')
      .max(200)
      .describe(
        'Words to find, matched against step titles, descriptions, platform names and kinds ("ticketing", "boards", "deployments")',
      ),
    limit: z.number().int().min(1).max(50).default(10).describe('At most this many matches, best first'),
  })
  .strict()

const Match = z.object({
  name: z.string().describe('The tool to call'),
  title: z.string(),
  description: z.string(),
  platform: z.string(),
  kind: z.string(),
  effect: z.enum(['read', 'write', 'delete']),
  legacy: z.boolean(),
  accounts: z
    .array(z.string())
    .describe(
      'The connected accounts its "integration" argument takes (the first 20 by name when there are more); none means the platform is not connected yet',
    ),
})

const SearchOutput = z.object({
  matches: z.array(Match),
  total: z.number().int().describe('How many steps matched in all'),
})

const schemaOf = (schema: z.ZodType, io: 'input' | 'output') => {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io }) as Record<string, unknown>
  return json as Tool['inputSchema']
}

/** The catalogue search, so a client with a small tool budget can find the step it needs. */
export function searchTool(): Tool {
  return {
    name: SEARCH_TOOL,
    title: 'Search tool steps',
    description:
      'Find Switchyard tool steps by words or by kind of platform, best match first (the catalogue search). Each match names the tool to call and the connected accounts it can act as.',
    inputSchema: schemaOf(SearchInput, 'input'),
    outputSchema: schemaOf(SearchOutput, 'output') as Tool['outputSchema'],
    annotations: {
      title: 'Search tool steps',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  }
}

export async function runSearch(
  catalog: McpCatalog,
  accounts: Accounts,
  args: unknown,
): Promise<z.output<typeof SearchOutput>> {
  const { query, limit } = parseOrThrow(SearchInput, args)
  const found = catalog.registry.search(query)
  return {
    total: found.length,
    matches: found.slice(0, limit).map((entry) => ({
      name: toolNameOf(entry.id),
      title: entry.title,
      description: entry.description,
      platform: entry.platform,
      kind: entry.kind,
      effect: entry.effect,
      legacy: entry.legacy,
      accounts: accounts.get(entry.platform)?.names ?? [],
    })),
  }
}
