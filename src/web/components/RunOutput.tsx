import type { RunSummary } from '../api.ts'
import { commentsOf, Conversation } from './Conversation.tsx'
import { CopyButton } from './RunBits.tsx'

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
        <p className="copy-row">
          <CopyButton text={json} label="Copy JSON" />
        </p>
        <pre data-testid="tool-output" tabIndex={0}>
          {json}
        </pre>
      </details>
    </div>
  )
}
