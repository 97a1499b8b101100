/**
 * The value cached for `key`, computed on first use. Keyed weakly: the value lives exactly as long
 * as the object it was computed from, so caching by a cached row or credential never outlives it.
 */
export function memoized<K extends object, V>(cache: WeakMap<K, V>, key: K, compute: (key: K) => V): V {
  let value = cache.get(key)
  if (value === undefined) {
    value = compute(key)
    cache.set(key, value)
  }
  return value
}
