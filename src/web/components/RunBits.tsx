import { useEffect, useRef, useState, type RefObject } from 'react'
import { STATUS_LABELS } from '../run-format.ts'

/** A run's, step's or subscription's status as a badge (queued, running, succeeded, failed, …). */
export function RunStatusBadge({ status }: { status: string }) {
  return (
    <span className={`badge badge-run badge-run-${status}`} data-status={status}>
      {status === 'running' && <span className="spinner" aria-hidden="true" />}
      {STATUS_LABELS[status] ?? status}
    </span>
  )
}

export function CopyButton({
  text,
  label = 'Copy',
  select,
  what = 'text',
}: {
  text: string
  label?: string
  /** Where the text is shown: selected for Ctrl+C when the clipboard is refused. */
  select?: RefObject<HTMLElement | null>
  /** What the text is, for that message ("key", "link"). */
  what?: string
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'selected' | 'failed'>('idle')
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      setState('copied')
    } catch {
      // The clipboard is refused on plain-HTTP origins other than localhost; say so rather than pretend.
      const node = select?.current
      if (node) window.getSelection()?.selectAllChildren(node)
      setState(node ? 'selected' : 'failed')
    }
  }
  return (
    <span className="copy-button">
      <button type="button" onClick={copy}>
        {label}
      </button>{' '}
      <span aria-live="polite" className="muted">
        {state === 'copied'
          ? 'Copied.'
          : state === 'selected'
            ? `Could not copy; the ${what} is selected, press Ctrl+C.`
            : state === 'failed'
              ? 'The browser refused the clipboard; select the text instead.'
              : ''}
      </span>
    </span>
  )
}

/** JSON behind a disclosure, copyable, scrolling inside its box (never wider than the window). */
export function JsonBlock({
  label,
  value,
  open,
  testId,
}: {
  label: string
  value: unknown
  open?: boolean
  testId?: string
}) {
  const json = value === undefined ? 'undefined' : JSON.stringify(value, null, 2)
  return (
    <details className="json-block" open={open} data-testid={testId}>
      <summary>{label}</summary>
      <div className="json-body">
        <CopyButton text={json} label="Copy JSON" />
        <pre tabIndex={0}>{json}</pre>
      </div>
    </details>
  )
}

/** Calls `tick` every `ms` while `active` (a run that is queued or running), never two at once. */
export function usePolling(tick: () => Promise<unknown>, active: boolean, ms = 1500) {
  const tickRef = useRef(tick)
  tickRef.current = tick
  useEffect(() => {
    if (!active) return
    let stopped = false
    let timer: ReturnType<typeof setTimeout>
    const loop = () => {
      timer = setTimeout(async () => {
        try {
          await tickRef.current()
        } catch {
          // A failed refresh is retried at the next tick; the page keeps what it shows.
        }
        if (!stopped) loop()
      }, ms)
    }
    loop()
    return () => {
      stopped = true
      clearTimeout(timer)
    }
  }, [active, ms])
}
