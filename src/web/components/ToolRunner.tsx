import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react'
import { api, ApiError, toolPath, type RunSummary, type Tool } from '../api.ts'
import { groupFieldErrors } from '../field-errors.ts'
import {
  coerceValues,
  fieldsFromSchema,
  initialValues,
  type FormValue,
  type FormValues,
} from '../schema-form.ts'
import { EffectBadge, Tag } from './Badges.tsx'
import { DocsLink } from './DocsLink.tsx'
import { FieldErrorText, fieldErrorId } from './FieldErrorText.tsx'
import { IntegrationPicker } from './IntegrationPicker.tsx'
import { Link } from './Link.tsx'
import { ProblemMessage } from './ProblemMessage.tsx'
import { RunOutput } from './RunOutput.tsx'
import { SchemaForm } from './SchemaForm.tsx'

type RunState =
  | { state: 'idle' }
  | { state: 'running' }
  | { state: 'done'; output: unknown; summary: RunSummary | null | undefined; ranWith: string }
  | { state: 'failed'; error: unknown }

/** A tool's description, its input form, an integration picker and the result of a run. */
export function ToolRunner({ tool, platformTitle }: { tool: Tool; platformTitle: string }) {
  const formId = `run-${tool.id.replace(/[^a-zA-Z0-9_-]/g, '-')}`
  const fields = useMemo(() => fieldsFromSchema(tool.inputSchema), [tool.inputSchema])
  const [values, setValues] = useState<FormValues>(() => initialValues(fields))
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({})
  const [integrationId, setIntegrationId] = useState('')
  const [run, setRun] = useState<RunState>({ state: 'idle' })
  /** The question shown in place of the Run button, when this run needs a yes first. */
  const [asking, setAsking] = useState<string | null>(null)

  // Another platform's integration cannot run this tool: the picker chooses one of this one's.
  useEffect(() => setIntegrationId(''), [tool.platform])

  const serverError = run.state === 'failed' && run.error instanceof ApiError ? run.error.problem : undefined
  const grouped = groupFieldErrors(
    serverError?.errors,
    'input',
    fields.map((f) => f.name),
  )
  const integrationErrors = grouped.other.filter((e) => e.field === 'integration').map((e) => e.message)
  const otherErrors = grouped.other.filter((e) => e.field !== 'integration')
  const fieldErrors: Record<string, string[]> = { ...grouped.byField }
  for (const [name, message] of Object.entries(localErrors)) fieldErrors[name] = [message]
  const placedCount = Object.keys(grouped.byField).length + integrationErrors.length

  // A write that just succeeded, with the same integration and input: pressing Run again would make
  // a second ticket or card. The form keeps its values (a person often runs a variant next, and a
  // reset would lose them), so the button says "Run again" and asks first instead.
  const snapshot = JSON.stringify([integrationId, values])
  // A run the platform answered with an error (an API Call's 4xx) made nothing to duplicate.
  const repeatsWrite =
    run.state === 'done' &&
    tool.effect !== 'read' &&
    run.summary?.tone !== 'error' &&
    run.ranWith === snapshot
  const question =
    tool.confirm ??
    (repeatsWrite
      ? `Already done with this input${run.summary ? `: ${run.summary.text}` : ''}. Run it again?`
      : null)

  const onChange = (name: string, value: FormValue) => {
    setAsking(null)
    setValues((v) => ({ ...v, [name]: value }))
    if (localErrors[name]) setLocalErrors(({ [name]: _gone, ...rest }) => rest)
  }

  /** Submitting (Run, or Enter in a field) only ever asks when a question is due; only the yes button runs then. */
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (question) {
      if (checkedInput()) setAsking(question)
      return
    }
    void execute()
  }

  const checkedInput = () => {
    const { input, errors } = coerceValues(fields, values)
    setLocalErrors(errors)
    if (Object.keys(errors).length > 0) {
      setAsking(null)
      setRun({ state: 'idle' })
      return null
    }
    return input
  }

  const execute = async () => {
    const input = checkedInput()
    if (!input) return
    setAsking(null)
    setRun({ state: 'running' })
    try {
      const { output, summary } = await api.runTool(tool.id, integrationId, input)
      setRun({ state: 'done', output, summary, ranWith: snapshot })
    } catch (error) {
      setRun({ state: 'failed', error })
    }
  }

  const pickerId = `${formId}-integration`
  const pickerErrorId = fieldErrorId(formId, 'integration')
  return (
    <section className="panel tool-detail" aria-labelledby={`${formId}-heading`}>
      <h2 id={`${formId}-heading`} tabIndex={-1}>
        {tool.title}
      </h2>
      <p className="tool-meta">
        <span className="muted">{platformTitle}</span> <code>{tool.id}</code>{' '}
        <EffectBadge effect={tool.effect} /> {tool.legacy && <Tag>legacy</Tag>}{' '}
        <DocsLink page="tools.md" anchor={tool.id}>
          Docs
        </DocsLink>
      </p>
      <p className="tool-description">{tool.description}</p>

      <form id={formId} onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor={pickerId}>Integration</label>
          <IntegrationPicker
            aria={{
              id: pickerId,
              'aria-invalid': integrationErrors.length > 0 || undefined,
              'aria-describedby': integrationErrors.length > 0 ? pickerErrorId : undefined,
            }}
            name="integration"
            platform={tool.platform}
            value={integrationId}
            onChange={(id) => {
              setAsking(null)
              setIntegrationId(id)
            }}
            chooseFirst
            empty={
              <p className="help">
                No {platformTitle} integration yet. <Link to="/integrations">Add one</Link> first.
              </p>
            }
          />
          <FieldErrorText id={pickerErrorId} messages={integrationErrors} />
        </div>

        <SchemaForm
          formId={formId}
          fields={fields}
          values={values}
          onChange={onChange}
          errors={fieldErrors}
          disabled={run.state === 'running'}
          pickers={
            integrationId && tool.fieldOptions
              ? { optionsBase: toolPath(tool.id), integrationId, fieldOptions: tool.fieldOptions }
              : undefined
          }
        />

        {asking === null ? (
          <div className="actions">
            <button
              type="submit"
              className={tool.effect === 'delete' ? 'button-danger' : 'button-primary'}
              disabled={run.state === 'running' || !integrationId}
            >
              {run.state === 'running' ? 'Running…' : repeatsWrite ? 'Run again' : 'Run'}
            </button>
          </div>
        ) : (
          <RunConfirmation
            question={asking}
            danger={tool.effect === 'delete'}
            label={repeatsWrite && !tool.confirm ? 'Run again' : `Yes, ${tool.title.toLowerCase()}`}
            onConfirm={() => void execute()}
            onCancel={() => setAsking(null)}
          />
        )}
      </form>

      {run.state === 'failed' && (
        <ProblemMessage
          error={run.error}
          otherFieldErrors={otherErrors}
          detail={placedCount > 0 ? 'Check the fields marked above.' : undefined}
        />
      )}
      {run.state === 'done' && (
        <RunOutput output={run.output} summary={run.summary} platformTitle={platformTitle} />
      )}
    </section>
  )
}

/** Asked in place of the Run button. Enter in a field does not answer it: only the yes button runs. */
function RunConfirmation({
  question,
  danger,
  label,
  onConfirm,
  onCancel,
}: {
  question: string
  danger: boolean
  label: string
  onConfirm: () => void
  onCancel: () => void
}) {
  const cancelRef = useRef<HTMLButtonElement>(null)
  useEffect(() => cancelRef.current?.focus(), [])
  return (
    <div className="actions confirm run-confirm" role="alertdialog" aria-label={question}>
      <span className="confirm-question">{question}</span>
      <button type="button" className={danger ? 'button-danger' : 'button-primary'} onClick={onConfirm}>
        {label}
      </button>
      <button ref={cancelRef} type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
  )
}
