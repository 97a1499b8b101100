/**
 * Where `root` holds a key that REST's JSON parser refuses (server/json-body.ts): `__proto__`, or
 * `prototype` inside `constructor`, which could change what other code reads from the object. For
 * values parsed elsewhere (MCP's JSON-RPC), so every door refuses the same keys. Null when none.
 * Walks without recursion, since a value can nest deeper than the call stack.
 */
export function prototypeKeyIn(root: unknown, rootName = ''): { field: string; key: string } | null {
  const pending: Array<[unknown, string]> = [[root, rootName]]
  while (pending.length) {
    const [value, where] = pending.pop()!
    if (typeof value !== 'object' || value === null) continue
    // A `__proto__` key that was copied by assignment (as the MCP SDK's validation copies arguments)
    // is no longer a key: it became the object's prototype.
    const proto: unknown = Object.getPrototypeOf(value)
    if (!Array.isArray(value) && proto !== Object.prototype && proto !== null)
      return { field: where ? `${where}.__proto__` : '__proto__', key: '__proto__' }
    const entries = Array.isArray(value)
      ? value.map((item, i) => [`[${i}]`, item] as const)
      : Object.keys(value).map((key) => [key, (value as Record<string, unknown>)[key]] as const)
    for (const [key, item] of entries) {
      const field = key.startsWith('[') ? `${where}${key}` : where ? `${where}.${key}` : key
      if (!Array.isArray(value) && key === '__proto__') return { field, key: '__proto__' }
      if (
        !Array.isArray(value) &&
        key === 'constructor' &&
        typeof item === 'object' &&
        item !== null &&
        Object.prototype.hasOwnProperty.call(item, 'prototype')
      )
        return { field: `${field}.prototype`, key: 'constructor.prototype' }
      pending.push([item, field])
    }
  }
  return null
}
