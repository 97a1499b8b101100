import type { FastifyInstance } from 'fastify'
import secureJson from 'secure-json-parse'
import { AppError } from '../core/errors.ts'

const notJson = () =>
  new AppError('invalid_input', 'the body is not valid JSON', {
    errors: [{ field: 'body', message: 'is not valid JSON' }],
  })

/**
 * JSON bodies, parsed as Fastify's own parser does (secure-json-parse, refusing `__proto__` and
 * `constructor.prototype` keys, which could change what other code reads from the object), but
 * saying which key was refused: Fastify's parser answers any refusal as "not valid JSON", which
 * sends the caller looking for a syntax error in a body that has none.
 */
export function registerJsonBodies(app: FastifyInstance) {
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (body === '') return done(notJson(), undefined)
    try {
      done(
        null,
        secureJson.parse(body as string, undefined, { protoAction: 'error', constructorAction: 'error' }),
      )
    } catch (err) {
      // One message for both keys; the body says which it held.
      if (!(err instanceof SyntaxError) || !/forbidden prototype property/.test(err.message))
        return done(notJson(), undefined)
      const key = /"__proto__"\s*:/.test(body as string) ? '__proto__' : 'constructor.prototype'
      done(
        new AppError('invalid_input', `the body holds a "${key}" key, which is refused`, {
          errors: [{ field: 'body', message: `must not hold a "${key}" key` }],
        }),
        undefined,
      )
    }
  })
}
