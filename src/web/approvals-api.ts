// Model runs' tool calls waiting for a person (REST: /v1/approvals; docs/model-agents.md, "Approvals").
import { request } from './api.ts'
import type { RequestBody, Schema } from './api-shapes.ts'

export type Approval = Schema<'Approval'>
export type ApprovalCall = Approval['calls'][number]
export type Decision = RequestBody<'/v1/approvals/{id}/decide', 'post'>['decisions'][number]

const enc = encodeURIComponent

export const approvalsApi = {
  pending: () =>
    request<{ approvals?: Approval[] }>('GET', '/v1/approvals?status=pending').then((r) => r.approvals ?? []),
  /** The requests of one run still waiting for a person (its page shows them). */
  pendingFor: (runId: string) =>
    approvalsApi.pending().then((list) => list.filter((a) => a.run_id === runId)),
  decide: (id: string, decisions: Decision[]) =>
    request<Approval>('POST', `/v1/approvals/${enc(id)}/decide`, { decisions }),
}
