import { z } from 'zod'
import type { PlatformDefinition } from '../platforms/types.ts'
import type { AnyTool, Effect } from './define.ts'
import { searchByWords, wordsOf, type Haystack } from '../word-search.ts'
import { inputParser, outputCheck, type OutputCheckResult } from './schema-check.ts'
import { declaredInputSchema } from '../validation.ts'

/** A tool step as the catalogue, REST, MCP, CLI and UI all present it. */
export interface CatalogEntry {
  id: string
  title: string
  description: string
  platform: string
  kind: string
  effect: Effect
  legacy: boolean
  /** A delete, or a write that cannot simply be taken back (MCP's destructiveHint): a model agent's call to it always waits for a person. */
  destructive: boolean
  /** The question the web app asks before running (docs/tools.md, "Confirmation"); absent for steps that run on one click. */
  confirm?: string
  inputSchema: Record<string, unknown>
  outputSchema: Record<string, unknown>
  /** The input fields with options to choose from, and the fields each one's options depend on. */
  fieldOptions: Record<string, { dependsOn: string[] }>
}

export interface RegisteredTool {
  tool: AnyTool
  platform: PlatformDefinition
  entry: CatalogEntry
  /** Parses a run's input against the declared input schema; throws invalid_input naming the fields. */
  parseInput(input: unknown): unknown
  /** Validates what a run returns against the declared output schema. */
  checkOutput(output: unknown): OutputCheckResult
  /** Lower-cased words the search bar matches against, per field. */
  haystack: Haystack
}

function confirmationOf(tool: AnyTool): { confirm?: string } {
  if (tool.confirm) return { confirm: tool.confirm }
  return tool.effect === 'delete' ? { confirm: `${tool.title}? This cannot be undone.` } : {}
}

export class ToolRegistry {
  private readonly byId = new Map<string, RegisteredTool>()

  constructor(platforms: PlatformDefinition[]) {
    for (const platform of platforms) {
      for (const tool of platform.tools) {
        if (this.byId.has(tool.id)) throw new Error(`duplicate tool id ${tool.id}`)
        checkOptionFields(tool)
        this.byId.set(tool.id, {
          tool,
          platform,
          entry: {
            id: tool.id,
            title: tool.title,
            description: tool.description,
            platform: platform.id,
            kind: platform.kind,
            effect: tool.effect,
            legacy: tool.legacy ?? false,
            destructive: tool.effect === 'delete' || (tool.destructive ?? false),
            ...confirmationOf(tool),
            inputSchema: declaredInputSchema(tool.input),
            outputSchema: z.toJSONSchema(tool.output, { io: 'output', unrepresentable: 'any' }) as Record<
              string,
              unknown
            >,
            fieldOptions: Object.fromEntries(
              Object.entries(tool.options ?? {}).map(([field, source]) => [
                field,
                { dependsOn: source.dependsOn ?? [] },
              ]),
            ),
          },
          parseInput: inputParser(tool.input),
          checkOutput: outputCheck(tool.output),
          haystack: [
            { words: wordsOf(tool.title), weight: 8 },
            { words: wordsOf(`${platform.id} ${platform.title}`), weight: 4 },
            { words: wordsOf(platform.kind), weight: 4 },
            { words: wordsOf(tool.id), weight: 2 },
            { words: wordsOf(tool.description), weight: 1 },
          ],
        })
      }
    }
  }

  get(id: string): RegisteredTool | undefined {
    return this.byId.get(id)
  }

  list(): CatalogEntry[] {
    return [...this.byId.values()].map((t) => t.entry)
  }

  /** The ids of the platforms that have tool steps. */
  platformIds(): string[] {
    return [...new Set([...this.byId.values()].map((t) => t.platform.id))]
  }

  /**
   * The tool step search bar: every word must match (as a whole word or a word's start) the title,
   * description, platform name or the platform's kind. Title matches rank first, whole words above
   * prefixes, and legacy steps last. "ticketing" finds every Zendesk step, "board" every Trello one.
   */
  search(query: string): CatalogEntry[] {
    // Legacy steps stay findable for old workflows, but after every current match.
    const found = searchByWords(
      [...this.byId.values()].map((t) => ({
        item: t.entry,
        haystack: t.haystack,
        last: t.entry.legacy,
        id: t.entry.id,
      })),
      query,
    )
    return found ?? this.list()
  }
}

/** A declaration's options must name its own input fields, or the catalogue would promise a picker no form shows. */
function checkOptionFields(tool: AnyTool) {
  const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, unknown>
  }
  const fields = Object.keys(schema.properties ?? {})
  for (const [field, source] of Object.entries(tool.options ?? {})) {
    for (const name of [field, ...(source.dependsOn ?? [])]) {
      if (!fields.includes(name))
        throw new Error(`${tool.id}: options name ${name}, which is not an input field`)
    }
  }
}
