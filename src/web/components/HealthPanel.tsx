import { useEffect, useState } from 'react'
import { agentsApi, type Subscription, type SubscriptionHealth } from '../agents-api.ts'
import { formatTime, timeAgo } from '../run-format.ts'
import { verdictView } from '../subscription-form.ts'
import { Link } from './Link.tsx'
import { ProblemMessage } from './ProblemMessage.tsx'
import { RecentEvents } from './RecentEvents.tsx'

/** Whether the platform still has the webhook, asked live: null when it could not be asked. */
const PRESENT: Record<string, string> = { true: 'in place', false: 'missing', null: 'not checked' }

/** What a person asks when a trigger does not fire: is the integration connected, is the webhook there, what happened last. */
export function HealthPanel({
  subscription,
  platformTitle,
}: {
  subscription: Subscription
  platformTitle: string
}) {
  const [health, setHealth] = useState<SubscriptionHealth | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [checking, setChecking] = useState(false)

  const check = async () => {
    setChecking(true)
    setError(null)
    try {
      setHealth(await agentsApi.health(subscription.id))
    } catch (e) {
      setError(e)
    } finally {
      setChecking(false)
    }
  }
  useEffect(() => {
    void check()
    // Checked again when the subscription changes (activated, edited).
  }, [subscription.id, subscription.status, subscription.updated_at])

  const [polling, setPolling] = useState(false)
  const pollNow = async () => {
    setPolling(true)
    setError(null)
    try {
      await agentsApi.pollNow(subscription.id)
      // The poller takes it within a second; the health read after that shows the poll.
      await new Promise((resolve) => setTimeout(resolve, 1500))
      await check()
    } catch (e) {
      setError(e)
    } finally {
      setPolling(false)
    }
  }

  const verdict = health ? verdictView(health, platformTitle) : null
  return (
    <div className="health" data-testid="health">
      <div className="health-head">
        <h4>Health</h4>
        <button type="button" className="link-button" onClick={check} disabled={checking}>
          {checking ? 'Checking…' : 'Check again'}
        </button>
      </div>
      {error !== null && <ProblemMessage error={error} />}
      {!health && !error && <p className="muted">Checking…</p>}
      {health && verdict && (
        <>
          <div className={`health-verdict health-${verdict.tone}`} data-verdict={health.verdict}>
            <strong>{verdict.title}.</strong> {verdict.lines[0]}
            {verdict.lines.length > 1 && (
              <ul className="health-reasons">
                {verdict.lines.slice(1).map((line, i) => (
                  <li key={i}>{line}</li>
                ))}
              </ul>
            )}
          </div>
          <dl className="facts health-facts">
            <div>
              <dt>Integration</dt>
              <dd>
                {health.integration.name}:{' '}
                {health.integration.connected ? 'connected' : <Link to="/integrations">not connected</Link>}
              </dd>
            </div>
            {health.webhooks.map((w) => (
              <div key={w.model_key}>
                <dt>Webhook at {platformTitle}</dt>
                <dd>
                  {PRESENT[String(w.present)]}
                  {w.remote_id && <span className="muted wrap-anywhere"> (id {w.remote_id})</span>}
                  {w.last_error && <span className="entry-error-inline"> · {w.last_error}</span>}
                  {w.address && (
                    <>
                      <br />
                      <span className="muted">sends to </span>
                      <code className="wrap-anywhere" data-testid="intake-address">
                        {w.address}
                      </code>
                    </>
                  )}
                </dd>
              </div>
            ))}
            {health.polled && (
              <div>
                <dt>Checks {platformTitle}</dt>
                <dd>
                  {health.deliveries?.last_poll_at
                    ? `last at ${formatTime(health.deliveries.last_poll_at)}`
                    : 'not yet'}
                  {health.next_poll_at ? `; next at ${formatTime(health.next_poll_at)}` : ''}{' '}
                  {subscription.status === 'active' && (
                    <button type="button" className="link-button" onClick={pollNow} disabled={polling}>
                      {polling ? 'Polling…' : 'Poll now'}
                    </button>
                  )}
                </dd>
              </div>
            )}
            {health.deliveries?.refused && (
              <div>
                <dt>Refused</dt>
                <dd className="entry-error-inline" data-testid="health-refused">
                  {health.deliveries.refused.count} of the last {health.deliveries.recent} deliveries:{' '}
                  {health.deliveries.refused.reason}
                </dd>
              </div>
            )}
            {health.deliveries?.skipped && (
              <div>
                <dt>Skipped</dt>
                <dd data-testid="health-skipped">
                  {health.deliveries.skipped.count} made by {health.integration.name} itself (the loop guard);
                  tick “Also start on changes made by this integration’s own account” to start on them
                </dd>
              </div>
            )}
            <div>
              <dt>Last event</dt>
              <dd>
                {health.last_event_at
                  ? `${timeAgo(health.last_event_at)} (${formatTime(health.last_event_at)})`
                  : 'none yet'}
              </dd>
            </div>
            {health.last_error && (
              <div>
                <dt>Last error</dt>
                <dd className="entry-error-inline">
                  {health.last_error}
                  {health.last_error_at && (
                    <span className="muted"> ({formatTime(health.last_error_at)})</span>
                  )}
                </dd>
              </div>
            )}
          </dl>
          <RecentEvents subscriptionId={subscription.id} refreshed={health} />
        </>
      )}
    </div>
  )
}
