/** Zendesk takes an assignee as `assignee_id` or `assignee_email`; null unassigns. */
export function assigneeFields(
  assignee: number | string | null | undefined,
): Record<string, number | string | null> {
  if (assignee === undefined) return {}
  if (assignee === null) return { assignee_id: null }
  return typeof assignee === 'number' ? { assignee_id: assignee } : { assignee_email: assignee }
}
