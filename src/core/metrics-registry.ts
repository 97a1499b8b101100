import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client'
import { templateWorkerCounts } from './expressions/isolation.ts'
import type { Metrics } from './metrics.ts'

// The registry core's metrics are counted in. It lives in core, beside the interface it implements,
// so the composition root (src/services.ts) builds it without reaching up into the server, which only
// serves it (server/metrics.ts, GET /metrics).

/** Core's metrics, counted in a Prometheus registry of their own (one per service, so tests can hold several). */
export interface PrometheusMetrics extends Metrics {
  registry: Registry
}

export function createPrometheusMetrics(): PrometheusMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const toolCalls = new Counter({
    name: 'switchyard_tool_calls_total',
    help: 'Tool step runs, by tool, platform and outcome (ok or the error code).',
    labelNames: ['tool', 'platform', 'outcome'] as const,
    registers: [registry],
  })
  const toolSeconds = new Histogram({
    name: 'switchyard_tool_call_duration_seconds',
    help: 'How long tool step runs took, rate-limit waits and retries included.',
    labelNames: ['tool', 'platform'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  })
  const waits = new Counter({
    name: 'switchyard_rate_limit_waits_total',
    help: 'Requests to a platform that queued for rate budget, by how the wait ended.',
    labelNames: ['platform', 'outcome'] as const,
    registers: [registry],
  })
  const waitSeconds = new Counter({
    name: 'switchyard_rate_limit_wait_seconds_total',
    help: 'Seconds requests to a platform spent queued for rate budget.',
    labelNames: ['platform'] as const,
    registers: [registry],
  })
  const errors = new Counter({
    name: 'switchyard_errors_total',
    help: 'Errors answered to callers, by code (docs/errors.md).',
    labelNames: ['code'] as const,
    registers: [registry],
  })
  const events = new Counter({
    name: 'switchyard_trigger_events_total',
    help: 'Platform events through the intake and the polls, by platform and outcome (accepted, duplicate, unmatched).',
    labelNames: ['platform', 'outcome'] as const,
    registers: [registry],
  })
  const runQueueSeconds = new Histogram({
    name: 'switchyard_run_queue_seconds',
    help: 'How long runs waited between being enqueued and a worker starting them.',
    buckets: [0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  })
  const runs = new Counter({
    name: 'switchyard_runs_total',
    help: 'Runs that ended, by final status.',
    labelNames: ['status'] as const,
    registers: [registry],
  })
  // The template workers are the process's (expressions/isolation.ts): read when /metrics is read.
  new Counter({
    name: 'switchyard_template_worker_batches_total',
    help: 'Batches of templates sent to a template worker (plain paths render without one, and a template stopped recently fails without one).',
    registers: [registry],
    collect() {
      this.reset()
      this.inc(templateWorkerCounts.batches)
    },
  })
  new Counter({
    name: 'switchyard_templates_stopped_total',
    help: 'Templates stopped at the time or memory limit (each stop ends its worker, and another is started).',
    registers: [registry],
    collect() {
      this.reset()
      this.inc(templateWorkerCounts.stopped)
    },
  })
  // Label sets are few (catalogue × outcome codes): keep each series' handle instead of hashing labels per call.
  const series = new Map<string, { calls: { inc(): void }; seconds: { observe(v: number): void } }>()
  return {
    registry,
    toolCall(tool, platform, outcome, seconds) {
      const key = `${tool}\u0000${outcome}`
      let handles = series.get(key)
      if (!handles) {
        handles = {
          calls: toolCalls.labels(tool, platform, outcome),
          seconds: toolSeconds.labels(tool, platform),
        }
        series.set(key, handles)
      }
      handles.calls.inc()
      handles.seconds.observe(seconds)
    },
    rateLimitWait(platform, outcome, seconds) {
      waits.labels(platform, outcome).inc()
      waitSeconds.labels(platform).inc(seconds)
    },
    error(code) {
      errors.labels(code).inc()
    },
    triggerEvent(platform, outcome) {
      events.labels(platform, outcome).inc()
    },
    runStarted(queuedSeconds) {
      runQueueSeconds.observe(queuedSeconds)
    },
    runFinished(status) {
      runs.labels(status).inc()
    },
  }
}
