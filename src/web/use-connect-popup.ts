import { useCallback, useEffect, useRef, useState } from 'react'
import {
  connectResultFromEvent,
  POPUP_FEATURES,
  POPUP_NAME,
  type ConnectResultMessage,
} from './connect-popup.ts'

export type PopupConnectStatus =
  | { state: 'idle' }
  /** The pop-up is open on a blank page while Switchyard prepares the connect address. */
  | { state: 'starting' }
  /** The person is on the platform's pages in the pop-up. */
  | { state: 'waiting' }
  /** The browser refused to open the pop-up: the same address can still be opened in this tab. */
  | { state: 'blocked'; url: string }
  /** The pop-up was closed before the platform answered. */
  | { state: 'closed' }
  | { state: 'failed'; error: unknown }

const POLL_MS = 400
// The pop-up posts its result just before it closes itself; let the message arrive first.
const CLOSE_GRACE_MS = 500

function showOpening(popup: Window, title: string): void {
  try {
    popup.document.title = `Connecting ${title}…`
    popup.document.body.style.font = '16px system-ui, sans-serif'
    popup.document.body.style.padding = '2rem'
    popup.document.body.textContent = `Opening ${title}…`
  } catch {
    // Not ours to write into (it already left about:blank): nothing to show.
  }
}

/**
 * Runs an authorization flow in a pop-up window. `start` must be called from the click handler
 * itself: the window is opened at once (pop-up blockers allow windows opened by a click), on a blank
 * page, and sent to the connect address once Switchyard has made it.
 */
export function useConnectPopup(platformTitle: string, onResult?: (message: ConnectResultMessage) => void) {
  const [status, setStatus] = useState<PopupConnectStatus>({ state: 'idle' })
  const popupRef = useRef<Window | null>(null)
  const stopRef = useRef<(() => void) | null>(null)
  const onResultRef = useRef(onResult)
  onResultRef.current = onResult

  const stop = useCallback(() => {
    stopRef.current?.()
    stopRef.current = null
  }, [])

  // Leaving the page stops watching; the pop-up goes on, and the app-wide listener takes its result.
  useEffect(() => stop, [stop])

  const watch = useCallback(
    (popup: Window) => {
      let received = false
      let grace: ReturnType<typeof setTimeout> | undefined
      const onMessage = (event: MessageEvent) => {
        if (event.source !== null && event.source !== popup) return
        const message = connectResultFromEvent(event, window.location.origin)
        if (!message) return
        received = true
        stop()
        setStatus({ state: 'idle' })
        onResultRef.current?.(message)
      }
      const poll = setInterval(() => {
        if (!popup.closed) return
        clearInterval(poll)
        grace = setTimeout(() => {
          if (received) return
          stop()
          setStatus({ state: 'closed' })
        }, CLOSE_GRACE_MS)
      }, POLL_MS)
      window.addEventListener('message', onMessage)
      stopRef.current = () => {
        clearInterval(poll)
        clearTimeout(grace)
        window.removeEventListener('message', onMessage)
        if (popupRef.current === popup) popupRef.current = null
      }
    },
    [stop],
  )

  const start = useCallback(
    (connectUrl: () => Promise<string>) => {
      stop()
      let popup: Window | null = null
      try {
        popup = window.open('about:blank', POPUP_NAME, POPUP_FEATURES)
      } catch {
        popup = null
      }
      if (popup) showOpening(popup, platformTitle)
      popupRef.current = popup
      setStatus({ state: 'starting' })
      connectUrl().then(
        (url) => {
          if (!popup) return setStatus({ state: 'blocked', url })
          if (popup.closed) return setStatus({ state: 'closed' })
          popup.location.replace(url)
          setStatus({ state: 'waiting' })
          watch(popup)
        },
        (error) => {
          popup?.close()
          popupRef.current = null
          setStatus({ state: 'failed', error })
        },
      )
    },
    [platformTitle, stop, watch],
  )

  /** Brings the pop-up to the front, if it is still open. */
  const focus = useCallback(() => {
    const popup = popupRef.current
    if (popup && !popup.closed) popup.focus()
  }, [])

  /** Gives up on the flow: closes the pop-up without saying it was closed early. */
  const cancel = useCallback(() => {
    const popup = popupRef.current
    stop()
    popupRef.current = null
    if (popup && !popup.closed) popup.close()
    setStatus({ state: 'idle' })
  }, [stop])

  const reset = useCallback(() => setStatus({ state: 'idle' }), [])

  return { status, start, focus, cancel, reset }
}
