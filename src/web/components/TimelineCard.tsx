import type { TimelineEntry } from '../agents-api.ts'
import { usePlatformTitles } from '../platform-titles.ts'
import { formatDuration, formatTime } from '../run-format.ts'
import { ApprovalNoteLine } from './ApprovalNoteLine.tsx'
import { JsonBlock, RunStatusBadge } from './RunBits.tsx'

const KIND_WORDS: Record<string, string> = {
  delivery: 'Delivery to your service',
  tool_call: 'Tool call',
  model_call: 'Model call',
}

/** What a model call stored (core/models/transcript.ts): its words, tokens and cost, read defensively. */
function modelAnswerOf(output: unknown): {
  text: string
  tokens: number | null
  cost: number | null
  requestId: string | null
} | null {
  if (!output || typeof output !== 'object') return null
  const o = output as Record<string, any>
  if (!Array.isArray(o.calls)) return null
  const usage = o.usage && typeof o.usage === 'object' ? o.usage : null
  return {
    text: typeof o.text === 'string' ? o.text : '',
    tokens: usage ? Number(usage.inputTokens ?? 0) + Number(usage.outputTokens ?? 0) : null,
    cost: typeof o.cost_usd === 'number' ? o.cost_usd : null,
    requestId: typeof o.requestId === 'string' ? o.requestId : null,
  }
}

/** One entry of a run's timeline: a step, a tool call of an external agent, or a delivery to it. */
export function TimelineCard({ entry, now }: { entry: TimelineEntry; now: number }) {
  const platformTitles = usePlatformTitles()
  const platform = entry.tool_id?.split('.')[0]
  const failed = entry.status === 'failed'
  const duration =
    entry.duration_ms ?? (entry.status === 'running' ? Math.max(0, now - Date.parse(entry.started_at)) : null)
  return (
    <li
      className={`timeline-entry timeline-${entry.status}`}
      data-testid="timeline-entry"
      data-step-key={entry.key}
    >
      <div className="entry-head">
        <RunStatusBadge status={entry.status} />
        <span className="entry-title">
          <code className="step-key">{entry.key}</code>{' '}
          {entry.kind === 'delivery'
            ? KIND_WORDS.delivery
            : (entry.tool_title ?? entry.tool_id ?? KIND_WORDS[entry.kind] ?? entry.kind)}
        </span>
        {entry.integration_name && <span className="muted">on {entry.integration_name}</span>}
        <span className="muted entry-duration">{formatDuration(duration)}</span>
      </div>
      {entry.summary && !(failed && entry.error) && (
        <p className={entry.summary.tone === 'error' ? 'summary-line entry-error' : 'summary-line'}>
          {entry.summary.text}
          {entry.summary.url && (
            <>
              {' '}
              <a href={entry.summary.url} target="_blank" rel="noreferrer" className="inline-url">
                Open in {(platform && platformTitles[platform]) ?? 'the platform'}
              </a>
            </>
          )}
        </p>
      )}
      {entry.kind === 'model_call' && <ModelWords output={entry.output} />}
      {entry.approval && <ApprovalNoteLine note={entry.approval} now={now} />}
      {entry.status === 'skipped' && !entry.summary && (
        <p className="muted">Skipped: its condition was false.</p>
      )}
      {failed && entry.error && (
        <p className="entry-error" role="note">
          {entry.error.message}
        </p>
      )}
      {entry.cut && entry.cut.length > 0 && (
        <p className="muted" role="note" data-testid="step-cut">
          {entry.cut.includes('input') && entry.cut.includes('output')
            ? 'Input and output are'
            : entry.cut.includes('input')
              ? 'The input is'
              : 'The output is'}{' '}
          stored cut: too large to keep whole, so only its start is kept, marked “cut by Switchyard” where it
          was cut. The step itself worked on the whole value.
        </p>
      )}
      <div className="entry-json">
        {entry.input !== undefined && entry.input !== null && (
          <JsonBlock
            label={
              entry.kind === 'delivery'
                ? 'What was sent'
                : entry.approval?.edited
                  ? 'Input that ran (edited by a person)'
                  : 'Input'
            }
            value={entry.input}
          />
        )}
        {entry.approval?.edited && (
          <JsonBlock label="Input the model asked for" value={entry.approval.model_input} />
        )}
        {entry.output !== undefined && entry.output !== null && (
          <JsonBlock label={entry.kind === 'delivery' ? 'What came back' : 'Output'} value={entry.output} />
        )}
      </div>
      {(entry.attempts.length > 1 || entry.attempts.some((a) => a.outcome === 'failed')) && (
        <details className="attempts" open={entry.status !== 'succeeded'}>
          <summary>{entry.attempts.length === 1 ? '1 attempt' : `${entry.attempts.length} attempts`}</summary>
          <ol>
            {entry.attempts.map((a, i) => (
              <li key={i}>
                {formatTime(a.at, now)}: {a.outcome === 'succeeded' ? 'succeeded' : 'failed'}
                {a.status !== undefined && ` (HTTP ${a.status})`} in {formatDuration(a.duration_ms)}
                {a.error && <span className="entry-error-inline"> · {a.error}</span>}
                {a.retry_in_ms !== undefined && (
                  <span className="muted"> · next attempt {formatDuration(a.retry_in_ms)} later</span>
                )}
              </li>
            ))}
          </ol>
        </details>
      )}
    </li>
  )
}

/** A model call read as a turn of the conversation: what it said, and what it cost. */
function ModelWords({ output }: { output: unknown }) {
  const answer = modelAnswerOf(output)
  if (!answer) return null
  const facts = [
    answer.tokens !== null ? `${answer.tokens} tokens` : '',
    answer.cost !== null ? `$${answer.cost.toFixed(4)}` : '',
    answer.requestId ? `request ${answer.requestId}` : '',
  ].filter(Boolean)
  return (
    <>
      {answer.text && (
        <blockquote className="model-words" data-testid="model-words">
          {answer.text}
        </blockquote>
      )}
      {facts.length > 0 && <p className="muted">{facts.join(' · ')}</p>}
    </>
  )
}
