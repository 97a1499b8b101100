// The small pieces every part of the OpenAPI document is written with (openapi.ts and its
// openapi-*.ts parts), kept once so that a problem answer or a JSON body reads the same everywhere.

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/** Problem answers (RFC 9457) for the given statuses. */
export const errors = (...codes: number[]) =>
  Object.fromEntries(
    codes.map((c) => [
      String(c),
      { description: 'Problem', content: { 'application/problem+json': { schema: ref('Problem') } } },
    ]),
  )

export const json = (schema: unknown, description = 'OK') => ({
  description,
  content: { 'application/json': { schema } },
})

export const body = (schema: unknown, required = true) => ({
  required,
  content: { 'application/json': { schema } },
})

export const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' } }

export const time = { type: 'string', format: 'date-time' }

/** An object whose members are always sent, except the optional ones named. */
export const sent = (properties: Record<string, object>, optional: string[] = []) => ({
  type: 'object',
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  properties,
})
