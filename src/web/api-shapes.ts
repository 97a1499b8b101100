// Names for the generated REST types (api-types.generated.ts, `npm run types:api`): a schema by its
// name, and an operation's JSON answer or body by path and method. The web app names its resources
// through these, so a field the server changes shows up as a type error here, not as a drift.
import type { components, paths } from './api-types.generated.ts'

export type Schema<N extends keyof components['schemas']> = components['schemas'][N]

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'
type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never

/** The JSON answer of `method path` with the given status. */
export type Answer<P extends keyof paths, M extends Method, S extends number = 200> =
  NonNullable<paths[P][M]> extends { responses: infer R } ? (S extends keyof R ? JsonOf<R[S]> : never) : never

/** The JSON body `method path` takes. */
export type RequestBody<P extends keyof paths, M extends Method> =
  NonNullable<paths[P][M]> extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never
