import { useEffect, useRef, useState, type ReactNode } from 'react'

interface Props {
  children: ReactNode
  /** The question shown in place of the button, e.g. "Delete acme?" */
  question: string
  confirmLabel: string
  onConfirm: () => void | Promise<void>
  disabled?: boolean
  danger?: boolean
}

/** A button that asks inline before acting (no modal dialog, keyboard friendly). */
export function ConfirmButton({ children, question, confirmLabel, onConfirm, disabled, danger }: Props) {
  const [asking, setAsking] = useState(false)
  const [busy, setBusy] = useState(false)
  const cancelRef = useRef<HTMLButtonElement>(null)
  const triggerRef = useRef<HTMLButtonElement>(null)
  const wasAsking = useRef(false)

  useEffect(() => {
    if (asking) cancelRef.current?.focus()
    else if (wasAsking.current) triggerRef.current?.focus()
    wasAsking.current = asking
  }, [asking])

  if (!asking) {
    return (
      <button
        ref={triggerRef}
        type="button"
        className={danger ? 'button-danger' : undefined}
        disabled={disabled}
        onClick={() => setAsking(true)}
      >
        {children}
      </button>
    )
  }
  const confirm = async () => {
    setBusy(true)
    try {
      await onConfirm()
    } finally {
      setBusy(false)
      setAsking(false)
    }
  }
  return (
    <span className="confirm" role="group" aria-label={question}>
      <span className="confirm-question">{question}</span>
      <button
        type="button"
        className={danger ? 'button-danger' : 'button-primary'}
        disabled={busy}
        onClick={confirm}
      >
        {confirmLabel}
      </button>
      <button ref={cancelRef} type="button" disabled={busy} onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  )
}
