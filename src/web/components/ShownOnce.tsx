import { useRef } from 'react'
import { CopyButton } from './RunBits.tsx'

/**
 * A secret or link shown this once (an API key, a signing secret, a password link): selectable, with
 * a Copy button that selects it for Ctrl+C when the browser refuses the clipboard.
 */
export function ShownOnce({ value, testId, what }: { value: string; testId: string; what: string }) {
  const codeRef = useRef<HTMLElement>(null)
  return (
    <div className="new-key">
      <code ref={codeRef} data-testid={testId}>
        {value}
      </code>
      <CopyButton text={value} select={codeRef} what={what} />
    </div>
  )
}
