import { useState } from 'react'
import type { RunSummary } from '../api.ts'
import { commentsOf, Conversation } from './Conversation.tsx'

/**
 * A run's result for a person: the summary line first (a failure the platform answered looks like
 * a failure), then what the output holds in readable form, and the raw JSON one click away.
 */
export function RunOutput({
  output,
  summary,
  platformTitle,
}: {
  output: unknown
  summary: RunSummary | null | undefined
  platformTitle: string
}) {
  const json = JSON.stringify(output, null, 2)
  const comments = commentsOf(output)
  const failed = summary?.tone === 'error'
  return (
    <div className={failed ? 'output output-error' : 'output'} role="status" data-testid="run-output">
      <h3>{failed ? 'The platform answered with an error' : 'Result'}</h3>
      {summary && (
        <p className="summary-line" data-testid="summary-line">
          <span className="summary-icon" aria-hidden="true">
            {failed ? '✕' : '✓'}
          </span>{' '}
          <span>{summary.text}</span>
          {summary.url && (
            <>
              {' '}
              <a href={summary.url} target="_blank" rel="noreferrer" className="inline-url">
                Open in {platformTitle}
              </a>
            </>
          )}
        </p>
      )}
      {comments && <Conversation comments={comments} />}
      <details className="output-json" open={!summary}>
        <summary>Full output (JSON)</summary>
        <CopyButton text={json} />
        <pre data-testid="tool-output" tabIndex={0}>
          {json}
        </pre>
      </details>
    </div>
  )
}

function CopyButton({ text }: { text: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle')
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      setState('copied')
    } catch {
      // The clipboard is refused on plain-HTTP origins other than localhost; say so rather than pretend.
      setState('failed')
    }
  }
  return (
    <p className="copy-row">
      <button type="button" onClick={copy}>
        Copy JSON
      </button>{' '}
      <span aria-live="polite" className="muted">
        {state === 'copied'
          ? 'Copied.'
          : state === 'failed'
            ? 'The browser refused the clipboard; select the text instead.'
            : ''}
      </span>
    </p>
  )
}
