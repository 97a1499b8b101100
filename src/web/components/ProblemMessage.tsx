import { ApiError, type FieldError, type Problem } from '../api.ts'
import { withQuery } from '../url-state.ts'
import { Link } from './Link.tsx'
import { LinkifiedText } from './LinkifiedText.tsx'
import { Troubleshooting } from './Troubleshooting.tsx'

interface Props {
  error: unknown
  /** Field errors not shown next to a field (pass them so none is lost). */
  otherFieldErrors?: readonly FieldError[]
  /** Replaces the detail line, e.g. when it would only repeat field errors shown next to fields. */
  detail?: string
}

export function problemOf(error: unknown): Problem {
  if (error instanceof ApiError) return error.problem
  return {
    status: 0,
    code: 'error',
    title: 'Something went wrong',
    detail: error instanceof Error ? error.message : String(error),
  }
}

function extraLine(p: Problem): string | undefined {
  // The detail already says which plan; what a person needs next is who can change it.
  if (p.code === 'plan_required')
    return 'An administrator of this Switchyard can change your plan on the Users page.'
  if (p.code === 'rate_limited' && p.retry_after !== undefined) return `Try again in ${p.retry_after} s.`
  if (p.code === 'upstream_error' && p.upstream_status !== undefined)
    return `The platform answered HTTP ${p.upstream_status}.`
  return undefined
}

/** Shows a problem+json error: title, detail (addresses in it become links), troubleshooting rules and unplaced field errors. */
export function ProblemMessage({ error, otherFieldErrors, detail }: Props) {
  const p = problemOf(error)
  const extra = extraLine(p)
  const fieldErrors = otherFieldErrors ?? p.errors ?? []
  return (
    <div className="problem" role="alert">
      <p className="problem-title">{p.title}</p>
      {(detail ?? p.detail) && (
        <p className="problem-detail">
          <LinkifiedText text={(detail ?? p.detail)!} />
        </p>
      )}
      {extra && <p>{extra}</p>}
      {p.code === 'reconnect_required' && p.integration_id && (
        <p>
          <Link className="button" to={withQuery('/integrations', { reconnect: p.integration_id })}>
            Reconnect
          </Link>
        </p>
      )}
      {fieldErrors.length > 0 && (
        <ul className="problem-fields">
          {fieldErrors.map((e, i) => (
            <li key={i}>
              {e.field && <code>{e.field}</code>} {e.message}
            </li>
          ))}
        </ul>
      )}
      {p.troubleshooting && <Troubleshooting rules={p.troubleshooting} applies={p.applies} />}
    </div>
  )
}

/**
 * A form's problem, unless every part of it is already shown next to a field: then it only says so
 * once more, with any field errors that have no field of their own.
 */
export function FormProblem({
  error,
  hasFieldErrors,
  otherFieldErrors,
}: {
  error: unknown
  hasFieldErrors: boolean
  otherFieldErrors: readonly FieldError[]
}) {
  if (error === null || (hasFieldErrors && otherFieldErrors.length === 0)) return null
  return (
    <ProblemMessage
      error={error}
      otherFieldErrors={otherFieldErrors}
      detail={hasFieldErrors ? 'Check the fields marked above.' : undefined}
    />
  )
}
