import { useEffect, useState } from 'react'
import { api } from '../api.ts'

interface Props {
  tool: string
  integration: string
  field: string
  value: string
  /** The step's other inputs: an option list may depend on them (a Trello list on its board). */
  input: Record<string, unknown>
}

/**
 * A chosen option's value (an id) in the words of the thing it names, as the picker showed it when it
 * was chosen: `List: To Do` rather than `List: 6592…`. The first page of the field's options is read
 * (the server keeps it 30 s, docs/tool-options.md); a value not on it, a template or an unreachable
 * account shows the value itself.
 */
/** Each tool's declaration, read once per page load however many of its fields an overview shows. */
const declarations = new Map<string, ReturnType<typeof api.getTool>>()
const declarationOf = (tool: string) => {
  let found = declarations.get(tool)
  if (!found) {
    found = api.getTool(tool)
    // A failed read is not kept: the next overview asks again.
    found.catch(() => declarations.delete(tool))
    declarations.set(tool, found)
  }
  return found
}

export function OptionValue({ tool, integration, field, value, input }: Props) {
  const [label, setLabel] = useState<string | null>(null)
  useEffect(() => {
    if (value.includes('{{')) return
    const controller = new AbortController()
    declarationOf(tool)
      .then(async (declaration) => {
        const options = declaration.fieldOptions?.[field]
        if (!options) return
        const params: Record<string, string> = { integration }
        for (const name of options.dependsOn) {
          const depends = input[name]
          if (typeof depends !== 'string' || depends.includes('{{')) return
          params[name] = depends
        }
        const page = await api.toolOptions(tool, field, params, controller.signal)
        const found = page.options.find((o) => String(o.value) === value)
        if (found) setLabel(found.label)
      })
      .catch(() => {})
    return () => controller.abort()
  }, [tool, integration, field, value, JSON.stringify(input)])
  if (label === null) return <code>{value}</code>
  return <span title={value}>{label}</span>
}
