import { useEffect, useState } from 'react'
import { approvalsApi, type Approval } from '../approvals-api.ts'
import { ApprovalCard } from '../components/ApprovalCard.tsx'
import { Banner } from '../components/Banner.tsx'
import { ProblemMessage } from '../components/ProblemMessage.tsx'
import { usePolling } from '../components/RunBits.tsx'

/**
 * The approvals inbox (docs/model-agents.md, "Approvals"): each model run waiting for a person, its
 * tool calls in words with their inputs, and a decision per call (components/ApprovalCard.tsx). The server checks every decision;
 * nothing here can approve what the server would not.
 */
export function ApprovalsPage() {
  const [approvals, setApprovals] = useState<Approval[] | null>(null)
  const [loadError, setLoadError] = useState<unknown>(null)
  const [done, setDone] = useState<string | null>(null)
  const load = () =>
    approvalsApi.pending().then(
      (list) => {
        setApprovals(list)
        setLoadError(null)
      },
      (e) => setLoadError(e),
    )
  useEffect(() => {
    document.title = 'Approvals · Switchyard'
    void load()
  }, [])
  // New requests arrive while the page is open (a trigger starts a run that asks).
  usePolling(load, true, 5000)

  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Approvals</h1>
      </div>
      <p className="muted">
        Model agents wait here before a tool call that needs a person: destructive steps always, and writes
        their author marked. A request not decided by its deadline is denied.
      </p>
      {done && (
        <Banner kind="success" title={done} onDismiss={() => setDone(null)}>
          <p>The run goes on with your decisions; a denial&apos;s reason is given to the model.</p>
        </Banner>
      )}
      {loadError !== null && <ProblemMessage error={loadError} />}
      {approvals === null && loadError === null && <p className="muted">Loading…</p>}
      {approvals?.length === 0 && <p className="empty">Nothing is waiting for you.</p>}
      {approvals?.map((a) => (
        <ApprovalCard
          key={a.id}
          approval={a}
          onDecided={(message) => {
            setDone(message)
            setApprovals((list) => list?.filter((x) => x.id !== a.id) ?? null)
          }}
        />
      ))}
    </>
  )
}
