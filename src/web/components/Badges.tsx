const STATUS_LABELS: Record<string, string> = {
  active: 'Active',
  needs_reconnection: 'Needs reconnection',
  disconnected: 'Disconnected',
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-status-${status}`}>{STATUS_LABELS[status] ?? status}</span>
}

export function EffectBadge({ effect }: { effect: string }) {
  return (
    <span className={`badge badge-effect-${effect}`} title={`Effect: ${effect}`}>
      {effect}
    </span>
  )
}

export function Tag({ children }: { children: string }) {
  return <span className="tag">{children}</span>
}
