import type { PopupConnectStatus } from '../use-connect-popup.ts'

interface PopupStatusProps {
  title: string
  status: PopupConnectStatus
  onFocus: () => void
  onStop: () => void
}

/**
 * What the pop-up flow is doing, and what to do when the pop-up was blocked or closed. The live
 * region is always there, so that what appears in it is announced.
 */
export function PopupStatus({ title, status, onFocus, onStop }: PopupStatusProps) {
  return (
    <div className="popup-status-region" aria-live="polite">
      {status.state === 'waiting' && (
        <div className="popup-status" data-testid="popup-waiting">
          <p>Finish connecting in the {title} window: sign in, choose the account and allow access.</p>
          <div className="actions">
            <button type="button" className="link-button" onClick={onFocus}>
              Show the {title} window
            </button>
            <button type="button" className="link-button" onClick={onStop}>
              Stop waiting
            </button>
          </div>
        </div>
      )}
      {status.state === 'blocked' && (
        <div className="popup-status popup-status-warning" data-testid="popup-blocked">
          <p className="popup-status-title">Your browser blocked the {title} pop-up window.</p>
          <p>
            <a href={status.url}>Continue to {title} in this tab</a>, or allow pop-ups for this site and press
            Connect {title} again.
          </p>
        </div>
      )}
      {status.state === 'closed' && (
        <div className="popup-status" data-testid="popup-closed">
          <p>
            The {title} window was closed before access was granted. Nothing was connected; press Connect{' '}
            {title} to try again.
          </p>
        </div>
      )}
    </div>
  )
}
