/** A path into a response: dot-separated keys and [index] steps, e.g. body.tickets[0].id or headers.x-rate-limit. */
export const MAP_PATH = /^(status|headers|body)((\.[A-Za-z0-9_$-]+)|(\[\d+\]))*$/

export function resolvePath(root: unknown, path: string): unknown {
  const steps = path.match(/[^.[\]]+|\[\d+\]/g) ?? []
  let current: unknown = root
  for (const step of steps) {
    if (current === null || current === undefined) return undefined
    if (step.startsWith('[')) {
      if (!Array.isArray(current)) return undefined
      current = current[Number(step.slice(1, -1))]
    } else {
      if (typeof current !== 'object' || !Object.prototype.hasOwnProperty.call(current, step))
        return undefined
      current = (current as Record<string, unknown>)[step]
    }
  }
  return current
}
