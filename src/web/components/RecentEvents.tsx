import { useEffect, useState } from 'react'
import { agentsApi, type SubscriptionEvent } from '../agents-api.ts'
import { formatTime } from '../run-format.ts'
import { runPath } from '../routes.ts'
import { Link } from './Link.tsx'
import { ProblemMessage } from './ProblemMessage.tsx'

/** Each outcome in words (docs/triggers.md, "When a trigger does not fire"). */
const OUTCOME: Record<string, string> = {
  accepted: 'Started a run',
  duplicate: 'Duplicate',
  unmatched: 'Did not match',
  skipped: 'Skipped',
  refused: 'Refused',
  failed: 'Not stored',
  polled: 'Polled',
}

/** The subscription's recent deliveries and polls, each with what became of it and why. */
export function RecentEvents({ subscriptionId, refreshed }: { subscriptionId: string; refreshed: unknown }) {
  const [events, setEvents] = useState<SubscriptionEvent[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    agentsApi.events(subscriptionId).then(setEvents, setError)
  }, [subscriptionId, refreshed])
  if (error !== null) return <ProblemMessage error={error} />
  if (!events) return null
  return (
    <details className="recent-events" data-testid="recent-events">
      <summary>Recent events ({events.length})</summary>
      {events.length === 0 ? (
        <p className="muted">Nothing has arrived yet.</p>
      ) : (
        <ul className="item-list">
          {events.map((e) => (
            <li key={e.id} data-outcome={e.outcome}>
              <span className="muted">{formatTime(e.received_at)}</span> ·{' '}
              <strong>{OUTCOME[e.outcome] ?? e.outcome}</strong>
              {e.event_type && <code> {e.event_type}</code>}
              {e.run_id && (
                <>
                  {' '}
                  · <Link to={runPath(e.run_id)}>run</Link>
                </>
              )}
              {e.reason && (
                <span className={e.outcome === 'refused' ? 'entry-error-inline' : 'muted'}>
                  {' '}
                  · {e.reason}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </details>
  )
}
