import net, { type AddressInfo } from 'node:net'
import fastifyCookie from '@fastify/cookie'
import Fastify, { LogController, type FastifyInstance } from 'fastify'
import type { DestinationStream, Logger } from 'pino'
import { loadConfig, type Config } from '../core/config.ts'
import { createLogger } from '../core/log.ts'
import { createServices, openSandboxes, type Services } from '../services.ts'
import { registerCallerAuth } from './auth.ts'
import { registerMcp, type McpRouteOptions } from './mcp/route.ts'
import { openApiDocument } from './openapi.ts'
import { registerMetricsRoute } from './metrics.ts'
import { registerProblemHandlers } from './problem.ts'
import { registerNulGuard } from './nul-guard.ts'
import { registerDrainOnClose } from '../serving/drain-on-close.ts'
import { lazyChildLogger } from './request-logger.ts'
import { requestTimeouts } from './timeouts.ts'
import { registerSecurityHeaders } from './security-headers.ts'
import { agentRoutes } from './routes/agents.ts'
import { apiKeyRoutes } from './routes/api-keys.ts'
import { hookRoutes } from './routes/hooks.ts'
import { runRoutes } from './routes/runs.ts'
import { modelRoutes } from './routes/models.ts'
import { modelAdminRoutes } from './routes/model-admin.ts'
import { triggerRoutes } from './routes/triggers.ts'
import { integrationRoutes } from './routes/integrations.ts'
import { oauthRoutes } from './routes/oauth.ts'
import { platformRoutes } from './routes/platforms.ts'
import { sessionRoutes } from './routes/session.ts'
import { ssoRoutes } from './routes/sso.ts'
import { toolRoutes } from './routes/tools.ts'
import { userRoutes } from './routes/users.ts'
import { retentionRoutes } from './routes/retention.ts'
import { docsRoutes } from './docs/routes.ts'
import { registerJsonBodies } from './json-body.ts'
import { registerWebApp } from './web.ts'

const BODY_LIMIT_BYTES = 2 * 1024 * 1024
/** Routes polled by machines, whose successful answers write no access line. */
const QUIET_ROUTES = new Set(['/health', '/metrics'])

export interface AppOptions {
  logger?: boolean
  /** Where log lines go (stdout by default); tests read them to prove secrets stay out. */
  logDestination?: DestinationStream
  mcp?: McpRouteOptions
  /** The built web app's folder (web-dist by default); tests give their own. */
  webDist?: string
}

export async function buildApp(services: Services, options: AppOptions = {}): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    loggerInstance:
      options.logger || options.logDestination
        ? createLogger(services.config.logLevel, options.logDestination)
        : undefined,
    bodyLimit: BODY_LIMIT_BYTES,
    // request.ip (the sign-in slow-down's client address, the access log) comes from X-Forwarded-For
    // only when the peer is a configured proxy; otherwise it is the socket's (docs/security.md).
    trustProxy: services.config.trustedProxies.length ? services.config.trustedProxies : false,
    ...requestTimeouts(services.config),
    logController: new LogController({ disableRequestLogging: true }), // one line per request instead, below
    childLoggerFactory: lazyChildLogger,
    // Tool ids contain dots; keep routing exact and case-sensitive.
    routerOptions: { caseSensitive: true, ignoreTrailingSlash: true },
  }) as unknown as FastifyInstance
  // Bodies are JSON only: any other type answers 415 unsupported_media_type, naming the body.
  app.removeContentTypeParser('text/plain')
  registerJsonBodies(app)
  logRequests(app)
  registerDrainOnClose(app)
  await registerSecurityHeaders(app, services.config.publicUrl) // first: even a refused request gets them
  await app.register(fastifyCookie)
  registerProblemHandlers(app, (code) => services.metrics.error(code))
  registerNulGuard(app)
  registerCallerAuth(app, services, {
    publicRoutes: [
      'POST /v1/session',
      'DELETE /v1/session',
      'POST /v1/password-links/inspect',
      'POST /v1/password-links/accept',
      'GET /v1/sso',
      'GET /v1/sso/start',
      'GET /v1/sso/callback',
    ],
  })
  app.get('/health', async () => ({ ok: true }))
  app.get('/openapi.json', async () => openApiDocument(services.registry, services.config.publicUrl))
  registerMetricsRoute(app, services.metrics, services.config.metricsToken)
  sessionRoutes(app, services)
  ssoRoutes(app, services)
  apiKeyRoutes(app, services)
  platformRoutes(app, services)
  integrationRoutes(app, services)
  oauthRoutes(app, services)
  toolRoutes(app, services)
  userRoutes(app, services)
  retentionRoutes(app, services)
  agentRoutes(app, services)
  runRoutes(app, services)
  modelRoutes(app, services)
  modelAdminRoutes(app, services)
  triggerRoutes(app, services)
  docsRoutes(app)
  await hookRoutes(app, services)
  await registerMcp(app, services, options.mcp)
  await registerWebApp(app, options.webDist)
  return app
}

/**
 * One line per request, when it completes, instead of Fastify's two. The line holds only the fields
 * named here, the request through the logger's own serializer (URL masked), so it can skip the wildcard redaction paths that guard
 * every other line: on a request's log lines those cost five times the rest (47 µs against 9 µs
 * per request in a microbenchmark).
 */
function logRequests(app: FastifyInstance) {
  const accessLog = app.log.child({}, { redact: [] })
  // Without a logger Fastify's stand-in has no level check; it writes nothing either.
  const writesInfo = () => (accessLog as Partial<Logger>).isLevelEnabled?.('info') ?? false
  app.addHook('onResponse', (request, reply, done) => {
    // A scraper or a load balancer's probe every few seconds would bury the lines people read; failures still log.
    if (!writesInfo() || (QUIET_ROUTES.has(request.routeOptions.url ?? '') && reply.statusCode < 400))
      return done()
    accessLog.info(
      {
        reqId: request.id,
        req: request, // the logger's req serializer keeps method, masked URL and ip
        res: { statusCode: reply.statusCode },
        responseTime: reply.elapsedTime,
      },
      'request completed',
    )
    done()
  })
}

export interface RunningService {
  url: string
  /** Where the sandboxes are served; none in production. */
  sandboxUrl?: string
  services: Services
  close(): Promise<void>
}

/** Starts the service; in the embedded default it also starts the sandboxes it points at. */
export async function startService(
  requested: Config = loadConfig(),
  options: AppOptions = {},
): Promise<RunningService> {
  const config = await withPortChosen(requested)
  const sandbox = await openSandboxes(config, { port: config.sandboxPort })
  let services: Services | undefined
  let app: FastifyInstance
  try {
    services = await createServices(config, {
      sandboxes: sandbox.bindings,
      identity: sandbox.identity,
      modelSandbox: sandbox.model,
    })
    app = await buildApp(services, options)
    await app.listen({ port: config.port, host: config.host })
  } catch (err) {
    await services?.close()
    await sandbox.close()
    throw err
  }
  return {
    url: config.publicUrl,
    sandboxUrl: sandbox.url,
    services,
    async close() {
      await app.close()
      await services!.close()
      await sandbox.close()
    },
  }
}

/**
 * PORT=0 asks the system for a free port. The public URL made from the port (the banner, the
 * webhook and OAuth addresses, the CLI's service-url file) must name the port served, not 0, and the
 * services are made with it before the server listens: so the port is chosen first, by listening on
 * it for a moment. Another process could take it in between; then the start fails on its listen, as
 * with a port in use. A public URL set by the operator is theirs and stays as it is.
 */
async function withPortChosen(config: Config): Promise<Config> {
  if (config.port !== 0) return config
  const port = await new Promise<number>((resolve, reject) => {
    const probe = net.createServer()
    probe.once('error', reject)
    probe.listen(0, config.host, () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })
  const publicUrl = new URL(config.publicUrl)
  if (publicUrl.port !== '0') return { ...config, port }
  publicUrl.port = String(port)
  return { ...config, port, publicUrl: publicUrl.toString().replace(/\/+$/, '') }
}
