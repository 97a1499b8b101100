import type { ReactNode } from 'react'

interface Props {
  kind: 'success' | 'error' | 'info'
  title: ReactNode
  children?: ReactNode
  onDismiss?: () => void
}

/** A page-level message. Errors are announced at once (role=alert), others politely. */
export function Banner({ kind, title, children, onDismiss }: Props) {
  return (
    <div className={`banner banner-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      <div className="banner-body">
        <p className="banner-title">{title}</p>
        {children}
      </div>
      {onDismiss && (
        <button
          type="button"
          className="link-button banner-dismiss"
          onClick={onDismiss}
          aria-label="Dismiss message"
        >
          ×
        </button>
      )}
    </div>
  )
}
