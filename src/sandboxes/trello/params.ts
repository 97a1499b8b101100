import { fail, invalidValue } from './errors.ts'
import { isRecord } from './http.ts'

/**
 * Request arguments. Trello takes them as query parameters, form bodies or JSON bodies
 * (sources: Trello authentication, T-ARCH); the sandbox merges all three, the body winning over the query.
 */
export class Params {
  constructor(private readonly values: Record<string, unknown>) {}

  static merge(query: URLSearchParams, body: Record<string, unknown>): Params {
    return new Params({ ...Object.fromEntries(query), ...body })
  }

  has(name: string): boolean {
    return this.values[name] !== undefined
  }

  raw(name: string): unknown {
    return this.values[name]
  }

  entries(): [string, unknown][] {
    return Object.entries(this.values)
  }

  /** A scalar as a string (numbers and booleans from JSON bodies are accepted). */
  string(name: string): string | undefined {
    const value = this.values[name]
    if (value === undefined || value === null) return undefined
    if (typeof value === 'string') return value
    if (typeof value === 'number' || typeof value === 'boolean') return String(value)
    return fail(invalidValue(name))
  }

  /** `true`/`false` (strings or booleans); anything else is `invalid value for {name}`. */
  bool(name: string): boolean | undefined {
    const value = this.values[name]
    if (value === undefined) return undefined
    if (value === true || value === 'true') return true
    if (value === false || value === 'false') return false
    return fail(invalidValue(name))
  }

  /** A comma-separated string or a JSON array of strings; `''` is the empty list. */
  list(name: string): string[] | undefined {
    const value = this.values[name]
    if (value === undefined || value === null) return undefined
    if (Array.isArray(value)) {
      if (!value.every((v) => typeof v === 'string')) return fail(invalidValue(name))
      return value as string[]
    }
    if (typeof value !== 'string') return fail(invalidValue(name))
    return value
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')
  }

  /** A nullable date: ISO string or epoch ms; `null`/`''`/`'null'` clear it. */
  date(name: string): number | null | undefined {
    const value = this.values[name]
    if (value === undefined) return undefined
    if (value === null || value === '' || value === 'null') return null
    if (typeof value === 'number' && Number.isFinite(value)) return value
    if (typeof value === 'string') {
      const parsed = /^\d+$/.test(value) ? Number(value) : Date.parse(value)
      if (Number.isFinite(parsed)) return parsed
    }
    return fail(invalidValue(name))
  }

  /** A whole number within [min, max], or the default. */
  int(name: string, fallback: number, min: number, max: number): number {
    const value = this.values[name]
    if (value === undefined || value === '') return fallback
    const number =
      typeof value === 'number'
        ? value
        : typeof value === 'string' && /^\d+$/.test(value)
          ? Number(value)
          : NaN
    if (!Number.isInteger(number) || number < min || number > max) return fail(invalidValue(name))
    return number
  }

  asRecord(): Record<string, unknown> {
    return isRecord(this.values) ? { ...this.values } : {}
  }
}
