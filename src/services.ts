import { UserAdmin } from './core/access/admin.ts'
import { Mailer } from './core/access/mailer.ts'
import { OwnPassword } from './core/access/own-password.ts'
import { PasswordLinks } from './core/access/password-links.ts'
import { Sessions } from './core/access/sessions.ts'
import { PasswordSignIn } from './core/access/sign-in.ts'
import { SingleSignOn } from './core/access/sso.ts'
import { Users } from './core/access/users.ts'
import { ApiClientFactory } from './core/connections/clients.ts'
import { ConnectFlows } from './core/connections/connect.ts'
import { Credentials } from './core/connections/credentials.ts'
import { createSealer, loadEncryptionKey } from './core/connections/crypto.ts'
import { Integrations } from './core/connections/integrations.ts'
import { CredentialRefusals } from './core/connections/refusals.ts'
import { StepContexts } from './core/tools/step-context.ts'
import { Revoker } from './core/connections/revoke.ts'
import {
  ConfigError,
  parseSsoDomains,
  type Config,
  type OidcSettings,
  type SsoDomainRule,
} from './core/config.ts'
import { RateBudget } from './core/limits/budget.ts'
import { MemoryBudgetStore } from './core/limits/budget-memory.ts'
import { PostgresBudgetStore } from './core/limits/budget-postgres.ts'
import { resolveRuntime, type PlatformRuntime, type SandboxBinding } from './core/platforms/runtime.ts'
import { openStore, type Store } from './core/store/database.ts'
import { ToolRegistry } from './core/tools/catalog.ts'
import { ToolExecutor } from './core/tools/executor.ts'
import { ToolOptions } from './core/tools/options.ts'
import { platforms } from './platforms/index.ts'
import { Agents } from './core/agents/agents.ts'
import { ExternalDelivery } from './core/agents/external.ts'
import { AgentRunHandler } from './core/agents/run-handler.ts'
import { RunState } from './core/agents/run-state.ts'
import { Runs } from './core/agents/runs.ts'
import { StepRunner } from './core/agents/step-runner.ts'
import { RunTokenScope } from './core/agents/run-scope.ts'
import { ToolCallRecorder } from './core/agents/tool-calls.ts'
import { QueueCap } from './core/agents/queue-cap.ts'
import { RunWorker } from './core/agents/worker.ts'
import { TriggerRegistry } from './core/triggers/catalog.ts'
import { DeliveryLog } from './core/triggers/delivery-log.ts'
import { Intake } from './core/triggers/intake.ts'
import { TriggerEvents } from './core/triggers/trigger-events.ts'
import { Poller } from './core/triggers/poller.ts'
import { RemoteWebhooks } from './core/triggers/remote-webhooks.ts'
import { SampleEvents } from './core/triggers/send-sample.ts'
import { Subscriptions } from './core/triggers/subscriptions.ts'
import { TriggerRoutes } from './core/triggers/routes.ts'
import { eventDaysFloor } from './core/retention/policy.ts'
import { Pruner } from './core/retention/pruner.ts'
import { retentionView, type RetentionView } from './core/retention/view.ts'
import { TriggerLifecycle } from './core/triggers/lifecycle.ts'
import { createPrometheusMetrics, type PrometheusMetrics } from './core/metrics-registry.ts'
import { Approvals } from './core/models/approvals.ts'
import { ModelConnections, type ModelSandboxBinding } from './core/models/connections.ts'
import { ApprovalWebhookOutbox } from './core/models/approval-webhook-outbox.ts'
import { ApprovalWebhooks } from './core/models/approval-webhooks.ts'
import { PlanCeilings } from './core/models/plan-ceilings.ts'
import { PriceBook } from './core/models/price-book.ts'
import { aiSdkOnFirstCall } from './core/models/providers/on-first-call.ts'
import { ModelRunner } from './core/models/runner.ts'

/**
 * The sandboxes this deployment runs on. Production never does: its platforms are live or
 * `not_configured`. Otherwise it uses the sandbox server at SWITCHYARD_SANDBOX_URL, or starts its
 * own. The sandbox code is imported only here and only then, so production never loads it.
 */
export async function openSandboxes(
  config: Config,
  start: { port?: number } = {},
): Promise<{
  url?: string
  bindings: Map<string, SandboxBinding>
  /** The identity provider sandbox, for single sign-on when no real provider is configured. */
  identity?: SandboxIdentity
  /** The model sandbox's OpenAI endpoint: the "Sandbox model" connection. */
  model?: ModelSandboxBinding
  close(): Promise<void>
}> {
  if (config.production) return { bindings: new Map(), close: async () => {} }
  const { sandboxBindings, modelSandboxBindings } = await import('./sandboxes/index.ts')
  const { OIDC_CLIENT, OIDC_SANDBOX_DOMAINS } = await import('./sandboxes/oidc/seed.ts')
  const identity = (url: string): SandboxIdentity => ({
    settings: {
      issuer: `${url}/oidc`,
      clientId: OIDC_CLIENT.clientId,
      clientSecret: OIDC_CLIENT.clientSecret,
      name: 'the identity provider sandbox',
    },
    domains: (parseSsoDomains(OIDC_SANDBOX_DOMAINS) as { rules: SsoDomainRule[] }).rules,
  })
  const model = (url: string) => modelSandboxBindings(url).get('openai')
  if (config.sandboxUrl)
    return {
      url: config.sandboxUrl,
      bindings: sandboxBindings(config.sandboxUrl),
      identity: identity(config.sandboxUrl),
      model: model(config.sandboxUrl),
      close: async () => {},
    }
  const { startSandboxServer } = await import('./sandboxes/server.ts')
  const server = await startSandboxServer({ port: start.port, host: '127.0.0.1' })
  return {
    url: server.url,
    bindings: sandboxBindings(server.url),
    identity: identity(server.url),
    model: model(server.url),
    close: server.close,
  }
}

export interface SandboxIdentity {
  settings: OidcSettings
  /** Who may join through it unless SWITCHYARD_SSO_DOMAINS says otherwise. */
  domains: SsoDomainRule[]
}

/** The composition root: the one place that wires core to the platform registry (and sandboxes). */
export interface Services {
  config: Config
  store: Store
  users: Users
  /** What admins do to users: list, create, change plan or role, remove. */
  admin: UserAdmin
  sessions: Sessions
  /** Email and password sign-in, slowed after repeated failures (docs/security.md, "People"). */
  passwordSignIn: PasswordSignIn
  /** One-time invitation and reset links that set a password. */
  passwordLinks: PasswordLinks
  ownPassword: OwnPassword
  /** OpenID Connect single sign-on: the configured provider, else the sandbox's; none in production without one. */
  sso?: SingleSignOn
  integrations: Integrations
  credentials: Credentials
  connect: ConnectFlows
  disconnect: Revoker
  registry: ToolRegistry
  executor: ToolExecutor
  /** The options of tool steps' id fields, for pickers (docs/tool-options.md). */
  options: ToolOptions
  /** A caller's integration opened for a step, an options list, a trigger's set-up or poll. */
  contexts: StepContexts
  runtimes: Map<string, PlatformRuntime>
  agents: Agents
  runs: Runs
  /** Model providers people connect, and the sandbox model (docs/model-agents.md). */
  modelConnections: ModelConnections
  priceBook: PriceBook
  approvalWebhooks: ApprovalWebhooks
  approvalWebhookOutbox: ApprovalWebhookOutbox
  planCeilings: PlanCeilings
  /** Approval requests of model runs. */
  approvals: Approvals
  /** Tool steps an external agent calls with its run token, recorded on the run's timeline. */
  toolCalls: ToolCallRecorder
  /** What a run token may act on. */
  runTokenScope: RunTokenScope
  triggers: TriggerRegistry
  subscriptions: Subscriptions
  samples: SampleEvents
  webhooks: RemoteWebhooks
  /** What happens to triggers when an integration, a plan or a user goes. */
  lifecycle: TriggerLifecycle
  intake: Intake
  /** Recent deliveries and polls with their outcomes, written in batches. */
  deliveryLog: DeliveryLog
  triggerEvents: TriggerEvents
  /** The run worker and the poller of this process; both stop on close. */
  worker: RunWorker
  poller: Poller
  /** Deletes runs and events past their retention, on a schedule (docs/operating.md, "Retention"). */
  pruner: Pruner
  /** What an admin sees of retention. */
  retention(): Promise<RetentionView>
  /** What core counts for operators, served at /metrics (docs/operating.md). */
  metrics: PrometheusMetrics
  keySource: 'env' | 'file' | 'generated'
  close(): Promise<void>
}

/** The longest a notification of new runs waits for others to share it. */
const RUNS_NOTIFY_MS = 10

/** `fn` at most once per `ms`: the first call schedules it, later calls until then join that one. */
function coalesced(ms: number, fn: () => unknown): () => void {
  let timer: NodeJS.Timeout | null = null
  return () => {
    timer ??= setTimeout(() => {
      timer = null
      fn()
    }, ms)
  }
}

export async function createServices(
  config: Config,
  options: {
    /** The sandboxes the product may use, by platform id; none in production. */
    sandboxes?: Map<string, SandboxBinding>
    /** The identity provider sandbox, used for single sign-on when no provider is configured. */
    identity?: SandboxIdentity
    /** The sandbox model this deployment offers; none in production. */
    modelSandbox?: ModelSandboxBinding
    store?: Store
    env?: NodeJS.ProcessEnv
    /** How long API key and integration lookups are cached in process (tests stretch it to prove the change feed). */
    cacheTtlMs?: number
    /** false: no run worker or poller in this process (tests that drive them by hand). */
    engine?: boolean
    /** How often an idle run worker looks for runs it was not told about (tests stretch it to prove the change feed wakes it). */
    runIdlePollMs?: number
    /** Shorter waits between a step's attempts and an external agent's deliveries, for tests of the retries. */
    backoff?: {
      stepMs?: readonly number[]
      deliveryMs?: readonly number[]
      approvalWebhookMs?: readonly number[]
    }
  },
): Promise<Services> {
  // Events are the dedupe records: kept shorter than a platform retries, a late retry would run twice.
  const eventDaysMinimum = eventDaysFloor(
    platforms.flatMap((p) => (p.webhooks ? [p.webhooks.retryWindowMs] : [])),
  )
  if (config.retention.eventDays < eventDaysMinimum)
    throw new ConfigError(
      `Switchyard cannot use this configuration: SWITCHYARD_EVENT_RETENTION_DAYS must be at least ${eventDaysMinimum}, the longest time a platform may deliver an event again, not ${config.retention.eventDays} (docs/configuration.md)`,
    )
  const { key, source } = loadEncryptionKey({
    key: config.encryptionKey,
    production: config.production,
    dataDir: config.dataDir,
  })
  const sealer = createSealer(key)
  const store =
    options.store ??
    (await openStore(config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir }))
  const runtimes = new Map(
    platforms.map((p) => [p.id, resolveRuntime(p, options.env ?? process.env, options.sandboxes?.get(p.id))]),
  )
  const cache = { changes: store.changes, ttlMs: options.cacheTtlMs }
  const users = new Users(store.db, cache)
  const integrations = new Integrations(store.db, cache)
  const credentials = new Credentials(store, integrations, sealer)
  const budgetStore =
    store.kind === 'postgres' ? new PostgresBudgetStore(store.db, store.changes) : new MemoryBudgetStore()
  const metrics = createPrometheusMetrics()
  const clients = new ApiClientFactory(new RateBudget(budgetStore, metrics), config.upstreamTimeoutMs)
  const registry = new ToolRegistry(platforms)
  const contexts = new StepContexts(
    runtimes,
    integrations,
    credentials,
    clients,
    new CredentialRefusals(integrations, credentials, clients),
  )
  const disconnect = new Revoker(runtimes, credentials, clients)
  const executor = new ToolExecutor(registry, contexts, metrics)
  const agents = new Agents(store.db, registry, integrations, sealer, config.agentNetworks)
  const runs = new Runs(store.db, agents, registry, integrations, sealer)
  const runTokenScope = new RunTokenScope(store.db, agents, registry, integrations)
  const runState = new RunState(store.db, metrics, config.stepStoreMaxBytes)
  const external = new ExternalDelivery(
    runs,
    runState,
    (id) => agents.signingSecret(id),
    config.publicUrl,
    config.agentNetworks,
    options.backoff?.deliveryMs,
  )
  const modelConnections = new ModelConnections(
    store.db,
    sealer,
    options.modelSandbox,
    config.agentNetworks,
    cache,
  )
  agents.modelConnections = modelConnections
  const priceBook = new PriceBook(store.db, options.cacheTtlMs)
  const planCeilings = new PlanCeilings(store.db, options.cacheTtlMs)
  agents.planCeilings = planCeilings
  const approvals = new Approvals(store.db, registry, (id, version) => agents.definitionAt(id, version))
  const approvalWebhookOutbox = new ApprovalWebhookOutbox(
    store.db,
    sealer,
    config.agentNetworks,
    options.backoff?.approvalWebhookMs,
  )
  const approvalWebhooks = new ApprovalWebhooks(
    store.db,
    sealer,
    config.publicUrl,
    config.agentNetworks,
    approvalWebhookOutbox,
  )
  approvals.onOpened = (approval, ownerId) => {
    approvalWebhooks
      .notify(approval, ownerId)
      .catch((err: unknown) => console.error('approval webhook:', err instanceof Error ? err.message : err))
  }
  const handler = new AgentRunHandler(
    agents,
    users,
    runState,
    new StepRunner(registry, executor, runState, options.backoff?.stepMs),
    external,
    new ModelRunner(
      registry,
      executor,
      runState,
      modelConnections,
      integrations,
      approvals,
      aiSdkOnFirstCall,
      priceBook,
      planCeilings,
      options.backoff?.stepMs,
    ),
  )
  const logError = (err: unknown) => console.error('engine:', err instanceof Error ? err.message : err)
  const worker = new RunWorker(
    store.db,
    handler,
    config.runConcurrency,
    logError,
    config.runLeaseMs,
    metrics,
    options.runIdlePollMs,
  )
  // Other instances learn of new runs through the store's change feed (LISTEN/NOTIFY on PostgreSQL),
  // at most one notification per RUNS_NOTIFY_MS however many runs a burst enqueues; the worker's slow
  // idle poll is only the safety net (docs/scaling.md).
  const announceRuns =
    store.kind === 'postgres'
      ? coalesced(RUNS_NOTIFY_MS, () => store.changes.publish('runs', 'ready').catch(logError))
      : () => {}
  runs.onReady = (owner) => {
    worker.wake(owner)
    announceRuns()
  }
  approvals.onReady = runs.onReady
  store.changes.subscribe((kind) => {
    if (kind === 'runs') worker.wake()
  })
  runState.onLater = (at) => worker.wakeAt(at)
  const queueCap = new QueueCap(store.db)
  runs.queueCap = queueCap
  const triggers = new TriggerRegistry(platforms)
  // The intake's reads and writes go first on the embedded store's one connection (Store.urgent).
  const routes = new TriggerRoutes(store.urgent, store.changes, store.ahead)
  const webhooks = new RemoteWebhooks(store, contexts, sealer, config.publicUrl, users, runtimes, routes)
  const deliveryLog = new DeliveryLog(store.db, logError)
  const triggerEvents = new TriggerEvents(store.db, deliveryLog)
  const subscriptions = new Subscriptions(
    store.db,
    triggers,
    agents,
    runs,
    integrations,
    contexts,
    webhooks,
    routes,
    triggerEvents,
  )
  const lifecycle = new TriggerLifecycle(store.db, triggers, subscriptions, webhooks, routes)
  const connect = new ConnectFlows(
    store.db,
    runtimes,
    integrations,
    credentials,
    sealer,
    clients,
    config.publicUrl,
  )
  // Reconnected with a new credential: webhooks that belonged to the old one are made again under it
  // (issue 22, §1: Trello's go with the token that made them).
  connect.onReconnected = async (user, runtime, integration) => {
    await webhooks.remakeUnder(user, runtime.definition, integration)
  }
  const intake = new Intake(
    store.urgent,
    runtimes,
    triggers,
    routes,
    users,
    contexts,
    runs,
    webhooks,
    sealer,
    deliveryLog,
    metrics,
  )
  worker.intakeBusy = () => intake.busy()
  worker.claimsThrough = store.urgent
  worker.newcomerClaimsThrough = store.soonest
  intake.queueCap = queueCap
  const poller = new Poller(
    store.db,
    triggers,
    users,
    agents,
    runs,
    contexts,
    subscriptions,
    webhooks,
    integrations,
    config.pollIntervalMs,
    logError,
  )
  const pruner = new Pruner(store.db, config.retention, logError)
  const mailer = config.smtpUrl ? new Mailer(config.smtpUrl, config.mailFrom) : undefined
  const ssoSettings = config.oidc ?? options.identity?.settings
  const ssoDomains = config.oidc
    ? config.ssoDomains
    : config.ssoDomains.length
      ? config.ssoDomains
      : (options.identity?.domains ?? [])
  const sso = ssoSettings
    ? new SingleSignOn(store.db, users, ssoSettings, ssoDomains, config.publicUrl)
    : undefined
  // Every instance's idle poller learns of a polled subscription that became due (issue 22, §2).
  subscriptions.onPollDue = () => void store.changes.publish('polls', 'due').catch(logError)
  store.changes.subscribe((kind) => {
    if (kind === 'polls') poller.wake()
  })
  poller.queueCap = queueCap
  poller.log = deliveryLog
  if (options.engine !== false) {
    worker.start()
    poller.start()
    pruner.start()
    approvalWebhookOutbox.start()
  }
  return {
    config,
    store,
    users,
    admin: new UserAdmin(store.db, users, integrations, disconnect, lifecycle),
    sessions: new Sessions(store.db),
    passwordSignIn: new PasswordSignIn(store.db),
    passwordLinks: new PasswordLinks(store.db, config.publicUrl, mailer),
    ownPassword: new OwnPassword(store.db),
    sso,
    integrations,
    credentials,
    connect,
    registry,
    disconnect,
    executor,
    options: new ToolOptions(registry, contexts),
    contexts,
    runtimes,
    metrics,
    keySource: source,
    agents,
    runs,
    modelConnections,
    priceBook,
    planCeilings,
    approvalWebhooks,
    approvalWebhookOutbox,
    approvals,
    runTokenScope,
    toolCalls: new ToolCallRecorder(runState, runTokenScope),
    triggers,
    subscriptions,
    samples: new SampleEvents(store.db, triggers, webhooks, sealer, runs),
    webhooks,
    lifecycle,
    intake,
    deliveryLog,
    triggerEvents,
    worker,
    poller,
    pruner,
    retention: () =>
      retentionView(store.db, config.retention, eventDaysMinimum, config.stepStoreMaxBytes, pruner),
    async close() {
      await approvalWebhookOutbox.stop()
      await pruner.stop()
      await poller.stop()
      await worker.stop()
      await deliveryLog.flush()
      mailer?.close()
      await store.close()
    },
  }
}
