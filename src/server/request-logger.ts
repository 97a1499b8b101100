import type { FastifyBaseLogger } from 'fastify'
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString } from 'pino'

type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
const METHODS: Method[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

/**
 * Fastify gives every request a child logger. Building one runs the parent's redaction paths over
 * the request id, which on the bench machine costs more than routing the request, yet most requests
 * never write a line of their own (the access line has its own logger). So the child is built on
 * first use: a level check or a log call builds it, and it is the same child from then on.
 */
export function lazyChildLogger(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  let child: FastifyBaseLogger | undefined
  const real = () => (child ??= parent.child(bindings, options))
  const logger = {
    get level(): LevelWithSilentOrString { return real().level },
    set level(level: LevelWithSilentOrString) { real().level = level },
    child: (more: Bindings, moreOptions?: ChildLoggerOptions) => real().child(more, moreOptions),
  } as FastifyBaseLogger
  const methods = logger as unknown as Record<Method, (...args: unknown[]) => void>
  for (const method of METHODS) {
    // pino's log functions are overloaded: the arguments are passed on as they came.
    methods[method] = (...args) => (real() as unknown as typeof methods)[method](...args)
  }
  return logger
}
