import type { FastifyBaseLogger } from 'fastify'
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString } from 'pino'

type LogFn = (...args: unknown[]) => void

/**
 * Fastify gives every request a child logger. Building one runs the parent's redaction paths over
 * the request id, which on the bench machine costs more than routing the request, yet most requests
 * never write a line of their own (the access line has its own logger). So the child is built on
 * first use: a level check or a log call builds it, and it is the same child from then on. The
 * methods live on the class, so a request that never logs pays for one small object.
 */
class LazyChildLogger {
  private built: FastifyBaseLogger | undefined

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private real(): FastifyBaseLogger {
    return (this.built ??= this.parent.child(this.bindings, this.options))
  }

  private call(
    method: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent',
    args: unknown[],
  ): void {
    // pino's log functions are overloaded: the arguments are passed on as they came.
    ;(this.real()[method] as LogFn)(...args)
  }

  get level(): LevelWithSilentOrString {
    return this.real().level
  }
  set level(level: LevelWithSilentOrString) {
    this.real().level = level
  }
  child(more: Bindings, moreOptions?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real().child(more, moreOptions)
  }
  fatal(...args: unknown[]) {
    this.call('fatal', args)
  }
  error(...args: unknown[]) {
    this.call('error', args)
  }
  warn(...args: unknown[]) {
    this.call('warn', args)
  }
  info(...args: unknown[]) {
    this.call('info', args)
  }
  debug(...args: unknown[]) {
    this.call('debug', args)
  }
  trace(...args: unknown[]) {
    this.call('trace', args)
  }
  silent(...args: unknown[]) {
    this.call('silent', args)
  }
}

export function lazyChildLogger(
  parent: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyChildLogger(parent, bindings, options) as unknown as FastifyBaseLogger
}
