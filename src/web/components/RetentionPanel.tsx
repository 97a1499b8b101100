import { useEffect, useState } from 'react'
import { request } from '../api.ts'
import type { Answer } from '../api-shapes.ts'

type RetentionView = Answer<'/v1/retention', 'get'>

const number = (n: number) => n.toLocaleString('en')

/** How long runs are kept, per plan: the operator sets it (docs/configuration.md), admins see it here. */
export function RetentionPanel() {
  const [view, setView] = useState<RetentionView | null>(null)
  const [failed, setFailed] = useState(false)
  useEffect(() => {
    request<RetentionView>('GET', '/v1/retention').then(setView, () => setFailed(true))
  }, [])
  if (failed) return null
  if (!view) return null
  return (
    <section className="card" data-testid="retention">
      <h2>How long runs are kept</h2>
      <p className="muted">
        Finished runs, with their timelines, are deleted when older than their owner's plan allows, or past
        its count of newest runs. Queued and running runs are never deleted. The operator sets these
        (SWITCHYARD_RUN_RETENTION_DAYS, SWITCHYARD_RUN_RETENTION_COUNT).
      </p>
      <table className="table">
        <thead>
          <tr>
            <th>Plan</th>
            <th>Kept for</th>
            <th>Newest runs kept per user</th>
          </tr>
        </thead>
        <tbody>
          {view.plans.map((p) => (
            <tr key={p.plan}>
              <td>{p.plan}</td>
              <td>{number(p.max_age_days)} days</td>
              <td>{number(p.max_runs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">
        Events, which catch a platform's repeated deliveries, are kept {number(view.event_days)} days (never
        less than {number(view.event_days_minimum)}, the longest a platform retries). A step keeps at most{' '}
        {number(view.step_store_max_bytes)} bytes of its input and of its output; a larger one is stored cut,
        marked where it was cut. Stored now, about {number(view.stored.runs)} runs and{' '}
        {number(view.stored.events)} events.
      </p>
    </section>
  )
}
