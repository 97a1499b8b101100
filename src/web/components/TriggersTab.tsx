import { useEffect, useState } from 'react'
import { agentsApi, type Agent, type Subscription, type Trigger } from '../agents-api.ts'
import { usePlatformTitles } from '../platform-titles.ts'
import { formatTime, timeAgo } from '../run-format.ts'
import { Banner } from './Banner.tsx'
import { ConfirmButton } from './ConfirmButton.tsx'
import { HealthPanel } from './HealthPanel.tsx'
import { ProblemMessage } from './ProblemMessage.tsx'
import { RunStatusBadge } from './RunBits.tsx'
import { SubscriptionEditor } from './SubscriptionEditor.tsx'
import { WebhookSetup } from './SubscriptionPanels.tsx'

type Editing = null | { id: 'new' } | { id: string }

/** An agent's triggers (subscriptions): the list, adding and editing one, its health. */
export function TriggersTab({ agent }: { agent: Agent }) {
  const [subs, setSubs] = useState<Subscription[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [triggers, setTriggers] = useState<Trigger[]>([])
  const [editing, setEditing] = useState<Editing>(null)
  const [rowError, setRowError] = useState<{ id: string; error: unknown } | null>(null)
  const [busy, setBusy] = useState<string | null>(null)
  const [created, setCreated] = useState<string | null>(null)
  const [resumable, setResumable] = useState<string[]>([])
  const [resumeError, setResumeError] = useState<unknown>(null)
  // A page at a time (docs/rest-api.md, "Lists are paged"): an agent may have thousands of triggers.
  const [next, setNext] = useState<string | null>(null)
  const [loadingMore, setLoadingMore] = useState(false)
  const platformTitles = usePlatformTitles()

  const loadFirst = async () => {
    const page = await agentsApi.subscriptions(agent.id)
    setSubs(page.subscriptions)
    setNext(page.next_cursor)
  }
  const showMore = async () => {
    if (!next) return
    setLoadingMore(true)
    try {
      const page = await agentsApi.subscriptions(agent.id, { cursor: next })
      // One made here since the first page is already listed: it is not shown twice.
      setSubs((list) => [
        ...(list ?? []),
        ...page.subscriptions.filter((s) => !list?.some((l) => l.id === s.id)),
      ])
      setNext(page.next_cursor)
    } catch (e) {
      setError(e)
    } finally {
      setLoadingMore(false)
    }
  }

  useEffect(() => {
    setSubs(null)
    setNext(null)
    loadFirst().catch(setError)
    agentsApi.triggers().then(setTriggers, setError)
    agentsApi.planResumable(agent.id).then(setResumable, () => {})
  }, [agent.id])

  // After a plan upgrade: what the lowered plan paused is offered for resume, all at once.
  const resumePlan = async () => {
    setResumeError(null)
    try {
      const outcome = await agentsApi.resumePlan()
      await loadFirst()
      setResumable(outcome.failed.map((f) => f.id))
      if (outcome.failed.length) setResumeError(new Error(outcome.failed.map((f) => f.message).join('; ')))
    } catch (e) {
      setResumeError(e)
    }
  }

  const replace = (sub: Subscription) =>
    setSubs((list) =>
      list?.some((s) => s.id === sub.id)
        ? list.map((s) => (s.id === sub.id ? sub : s))
        : [...(list ?? []), sub],
    )

  const toggle = async (sub: Subscription) => {
    setBusy(sub.id)
    setRowError(null)
    try {
      replace(sub.status === 'active' ? await agentsApi.deactivate(sub.id) : await agentsApi.activate(sub.id))
    } catch (e) {
      setRowError({ id: sub.id, error: e })
    } finally {
      setBusy(null)
    }
  }
  const remove = async (sub: Subscription) => {
    setRowError(null)
    try {
      await agentsApi.removeSubscription(sub.id)
      setSubs((list) => list?.filter((s) => s.id !== sub.id) ?? null)
      if (editing?.id === sub.id) setEditing(null)
    } catch (e) {
      setRowError({ id: sub.id, error: e })
    }
  }

  const editingSub = editing && editing.id !== 'new' ? subs?.find((s) => s.id === editing.id) : undefined
  return (
    <section aria-label="Triggers">
      <div className="section-header">
        <p className="muted">
          A trigger starts a run of this agent when something happens on an integration, with the event mapped
          onto the agent's inputs.
        </p>
        {editing?.id !== 'new' && (
          <button type="button" className="button-primary" onClick={() => setEditing({ id: 'new' })}>
            Add trigger
          </button>
        )}
      </div>
      {error !== null && <ProblemMessage error={error} />}
      {resumable.length > 0 && (
        <Banner
          kind="info"
          title={`${resumable.length === 1 ? 'One trigger' : `${resumable.length} triggers`} paused by a lowered plan ${resumable.length === 1 ? 'is' : 'are'} included in your plan again.`}
        >
          <p>
            <button type="button" onClick={resumePlan}>
              Resume {resumable.length === 1 ? 'it' : 'them'}
            </button>
          </p>
        </Banner>
      )}
      {resumeError !== null && <ProblemMessage error={resumeError} />}
      {subs === null && error === null && <p className="muted">Loading triggers…</p>}
      {subs?.length === 0 && editing === null && (
        <p className="empty">No triggers yet: this agent runs only when started by hand or over the API.</p>
      )}

      {editing?.id === 'new' && (
        <SubscriptionEditor
          key="new"
          agent={agent}
          triggers={triggers}
          platformTitles={platformTitles}
          onSaved={(sub) => {
            replace(sub)
            setCreated(sub.id)
            setEditing({ id: sub.id })
          }}
          onClose={() => setEditing(null)}
        />
      )}

      {subs && subs.length > 0 && (
        <ul className="item-list subscription-list">
          {subs.map((s) => {
            const platformTitle = platformTitles[s.platform] ?? s.platform
            const open = editing?.id === s.id
            return (
              <li
                key={s.id}
                className={open ? 'item subscription-item subscription-open' : 'item subscription-item'}
                data-testid="subscription"
                data-trigger={s.trigger_id}
              >
                <div className="item-main">
                  <span className="item-title">{s.trigger_title}</span>
                  <span className="muted">
                    {platformTitle} · {s.integration_name}
                  </span>
                  <RunStatusBadge status={s.status} />
                  {s.health && (
                    <span className={`badge verdict-${s.health.verdict}`} data-verdict={s.health.verdict}>
                      {s.health.verdict}
                    </span>
                  )}
                </div>
                {s.health && s.health.reasons.length > 0 && (
                  <ul className="health-reasons">
                    {s.health.reasons.map((r) => (
                      <li key={r.code} data-reason={r.code}>
                        {r.message}
                      </li>
                    ))}
                  </ul>
                )}
                <p className="muted subscription-last">
                  {s.last_event_at
                    ? `Last event ${timeAgo(s.last_event_at)} (${formatTime(s.last_event_at)})`
                    : 'No event yet'}
                  {s.last_error && <span className="entry-error-inline"> · {s.last_error}</span>}
                </p>
                <div className="item-actions">
                  <button
                    type="button"
                    className={s.status === 'active' ? undefined : 'button-primary'}
                    disabled={busy === s.id}
                    onClick={() => toggle(s)}
                  >
                    {s.status === 'active' ? 'Deactivate' : 'Activate'}
                  </button>
                  <button
                    type="button"
                    aria-expanded={open}
                    onClick={() => setEditing(open ? null : { id: s.id })}
                  >
                    {open ? 'Close settings' : 'Settings, preview and test'}
                  </button>
                  <ConfirmButton
                    question={`Delete the “${s.trigger_title}” trigger?`}
                    confirmLabel="Delete trigger"
                    onConfirm={() => remove(s)}
                    danger
                  >
                    Delete
                  </ConfirmButton>
                </div>
                {created === s.id && s.status === 'inactive' && (
                  <p className="saved-note" role="status">
                    Saved. It starts no runs until you activate it: check the preview and test it first.
                  </p>
                )}
                {rowError?.id === s.id && <ProblemMessage error={rowError.error} />}
                <WebhookSetup
                  subscription={s}
                  trigger={triggers.find((t) => t.id === s.trigger_id)}
                  platformTitle={platformTitle}
                  onSaved={replace}
                />
                <HealthPanel subscription={s} platformTitle={platformTitle} />
                {open && editingSub && (
                  <SubscriptionEditor
                    key={s.id}
                    agent={agent}
                    triggers={triggers}
                    platformTitles={platformTitles}
                    subscription={editingSub}
                    onSaved={replace}
                    onClose={() => setEditing(null)}
                  />
                )}
              </li>
            )
          })}
        </ul>
      )}
      {next && (
        <button type="button" className="secondary" onClick={() => void showMore()} disabled={loadingMore}>
          {loadingMore ? 'Loading…' : 'Show more triggers'}
        </button>
      )}
    </section>
  )
}
