import type { parseArgs as ParseArgs } from 'node:util'
import { exampleTemplate } from '../core/triggers/event-fields.ts'
import { fieldOptions, TRIGGER_OPTIONS_USAGE } from './field-options.ts'
import { answer, ask } from './output.ts'

export const TRIGGERS_USAGE = `  triggers list [--json]                  the trigger catalogue; --json gives each trigger's id, title, platform,
                                          kind, mode, configSchema, eventSchema and sample event
  triggers search <words> [--json]        search it
  triggers get <id> [--json]              one trigger: its configuration, its event's fields, its sample
${TRIGGER_OPTIONS_USAGE}`

interface Trigger {
  id: string
  title: string
  description: string
  platform: string
  kind: string
  mode: 'instant' | 'polled'
  configSchema: JsonSchema
  eventSchema: JsonSchema
  sample: Record<string, unknown>
  fieldOptions: Record<string, { dependsOn: string[] }>
  requiredPlan: string | null
  /** Absent from servers older than plan notes. */
  availableOnYourPlan?: boolean
}
interface JsonSchema {
  type?: unknown
  description?: string
  properties?: Record<string, JsonSchema>
  required?: string[]
}

/** `switchyard triggers …`: the trigger catalogue, beside the tool steps. */
export async function triggers(
  sub: string | undefined,
  args: string[],
  parseArgs: typeof ParseArgs,
): Promise<number> {
  if (sub === 'options') return fieldOptions('triggers', args, parseArgs)
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean' } },
  })
  const json = values.json ?? false
  switch (sub) {
    case 'list':
    case 'search': {
      const words = positionals.join(' ')
      if (sub === 'search' && words.trim() === '')
        throw new Error('triggers search needs words, e.g. triggers search card moved')
      return answer(json, async () => {
        const { triggers: list } = await ask<{ triggers: Trigger[] }>(
          'GET',
          sub === 'list' ? '/v1/triggers' : `/v1/triggers?q=${encodeURIComponent(words)}`,
        )
        // No match is an answer, not a failure: said on stderr, so stdout stays what --json promises.
        if (list.length === 0)
          process.stderr.write(
            sub === 'list'
              ? 'No triggers are declared.\n'
              : `No trigger matches "${words}". Try fewer words, or \`switchyard triggers list\`.\n`,
          )
        const rows = list.map(
          ({
            id,
            title,
            description,
            platform,
            kind,
            mode,
            configSchema,
            eventSchema,
            sample,
            fieldOptions,
            requiredPlan,
            availableOnYourPlan,
          }) => ({
            id,
            title,
            description,
            platform,
            kind,
            mode,
            configSchema,
            eventSchema,
            sample,
            fieldOptions,
            requiredPlan,
            availableOnYourPlan,
          }),
        )
        const width = Math.max(0, ...rows.map((r) => r.id.length))
        return {
          value: rows,
          lines: rows.map((r) => `${r.id.padEnd(width)}  ${r.mode.padEnd(7)}  ${r.title}${planNote(r)}`),
        }
      })
    }
    case 'get': {
      const [id] = positionals
      if (!id) throw new Error('usage: switchyard triggers get <id>, e.g. triggers get trello.new_card')
      return answer(json, async () => {
        const trigger = await ask<Trigger>('GET', `/v1/triggers/${encodeURIComponent(id)}`)
        return { value: trigger, lines: describeTrigger(trigger) }
      })
    }
    default:
      throw new Error('usage: switchyard triggers list|search|get|options …')
  }
}

/** Said beside a trigger, so a plan refusal is never the first news of it. */
function planNote(t: Pick<Trigger, 'requiredPlan' | 'availableOnYourPlan'>): string {
  if (!t.requiredPlan) return ''
  return t.availableOnYourPlan === false
    ? ` (${t.requiredPlan} plan; not on yours: an admin can change it)`
    : ` (${t.requiredPlan} plan)`
}

function describeTrigger(t: Trigger): string[] {
  const fields = (schema: JsonSchema) =>
    Object.entries(schema.properties ?? {}).map(
      ([name, field]) =>
        `  ${name}${schema.required?.includes(name) ? ' (required)' : ''}${typeof field.type === 'string' ? `: ${field.type}` : ''}${field.description ? `  ${field.description}` : ''}`,
    )
  return [
    `${t.title} (${t.id})`,
    `  ${t.description}`,
    `  ${t.platform}, ${t.mode === 'instant' ? 'instant: the platform calls Switchyard' : 'polled: Switchyard asks the platform on a schedule'}${planNote(t)}`,
    '',
    'Configuration:',
    ...fields(t.configSchema),
    '',
    `Event fields (for the mapping, e.g. ${exampleTemplate(t.eventSchema as Record<string, unknown>)}):`,
    ...fields(t.eventSchema),
    '',
    'Sample event:',
    JSON.stringify(t.sample, null, 2),
  ]
}
