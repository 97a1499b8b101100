import { useEffect, useMemo, useState, type FormEvent } from 'react'
import { api, ApiError, type Integration, type Tool } from '../api.ts'
import { groupFieldErrors } from '../field-errors.ts'
import { coerceValues, fieldsFromSchema, initialValues, type FormValue, type FormValues } from '../schema-form.ts'
import { EffectBadge, Tag } from './Badges.tsx'
import { FieldErrorText, fieldErrorId } from './FieldErrorText.tsx'
import { Link } from './Link.tsx'
import { ProblemMessage } from './ProblemMessage.tsx'
import { SchemaForm } from './SchemaForm.tsx'

type RunState = { state: 'idle' } | { state: 'running' } | { state: 'done'; output: unknown } | { state: 'failed'; error: unknown }

const STATUS_NOTE: Record<string, string> = { needs_reconnection: ' (needs reconnection)', disconnected: ' (disconnected)' }

/** A tool's description, its input form, an integration picker and the result of a run. */
export function ToolRunner({ tool, platformTitle }: { tool: Tool; platformTitle: string }) {
  const formId = `run-${tool.id.replace(/[^a-zA-Z0-9_-]/g, '-')}`
  const fields = useMemo(() => fieldsFromSchema(tool.inputSchema), [tool.inputSchema])
  const [values, setValues] = useState<FormValues>(() => initialValues(fields))
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({})
  const [integrations, setIntegrations] = useState<Integration[] | null>(null)
  const [integrationsError, setIntegrationsError] = useState<unknown>(null)
  const [integrationId, setIntegrationId] = useState('')
  const [run, setRun] = useState<RunState>({ state: 'idle' })

  useEffect(() => {
    let live = true
    api.listIntegrations().then(
      (all) => {
        if (!live) return
        const mine = all.filter((i) => i.platform === tool.platform)
        setIntegrations(mine)
        setIntegrationId((current) => current || (mine.find((i) => i.status === 'active') ?? mine[0])?.id || '')
      },
      (e) => live && setIntegrationsError(e),
    )
    return () => {
      live = false
    }
  }, [tool.platform])

  const serverError = run.state === 'failed' && run.error instanceof ApiError ? run.error.problem : undefined
  const grouped = groupFieldErrors(serverError?.errors, 'input', fields.map((f) => f.name))
  const integrationErrors = grouped.other.filter((e) => e.field === 'integration').map((e) => e.message)
  const otherErrors = grouped.other.filter((e) => e.field !== 'integration')
  const fieldErrors: Record<string, string[]> = { ...grouped.byField }
  for (const [name, message] of Object.entries(localErrors)) fieldErrors[name] = [message]
  const placedCount = Object.keys(grouped.byField).length + integrationErrors.length

  const onChange = (name: string, value: FormValue) => {
    setValues((v) => ({ ...v, [name]: value }))
    if (localErrors[name]) setLocalErrors(({ [name]: _gone, ...rest }) => rest)
  }

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    const { input, errors } = coerceValues(fields, values)
    setLocalErrors(errors)
    if (Object.keys(errors).length > 0) {
      setRun({ state: 'idle' })
      return
    }
    setRun({ state: 'running' })
    try {
      const { output } = await api.runTool(tool.id, integrationId, input)
      setRun({ state: 'done', output })
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
        <span className="muted">{platformTitle}</span> <code>{tool.id}</code> <EffectBadge effect={tool.effect} /> {tool.legacy && <Tag>legacy</Tag>}
      </p>
      <p className="tool-description">{tool.description}</p>

      <form id={formId} onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor={pickerId}>Integration</label>
          {integrationsError !== null && <ProblemMessage error={integrationsError} />}
          {integrations === null && integrationsError === null && <p className="muted">Loading integrations…</p>}
          {integrations?.length === 0 && (
            <p className="help">
              No {platformTitle} integration yet. <Link to="/integrations">Add one</Link> first.
            </p>
          )}
          {integrations && integrations.length > 0 && (
            <select
              id={pickerId}
              name="integration"
              value={integrationId}
              aria-invalid={integrationErrors.length > 0 || undefined}
              aria-describedby={integrationErrors.length > 0 ? pickerErrorId : undefined}
              onChange={(e) => setIntegrationId(e.target.value)}
            >
              {integrations.map((i) => (
                <option key={i.id} value={i.id} data-status={i.status}>
                  {i.account_name}
                  {STATUS_NOTE[i.status] ?? ''}
                </option>
              ))}
            </select>
          )}
          <FieldErrorText id={pickerErrorId} messages={integrationErrors} />
        </div>

        <SchemaForm
          formId={formId}
          fields={fields}
          values={values}
          onChange={onChange}
          errors={fieldErrors}
          disabled={run.state === 'running'}
          pickers={integrationId && tool.fieldOptions ? { toolId: tool.id, integrationId, fieldOptions: tool.fieldOptions } : undefined}
        />

        <div className="actions">
          <button type="submit" className="button-primary" disabled={run.state === 'running' || !integrationId}>
            {run.state === 'running' ? 'Running…' : 'Run'}
          </button>
        </div>
      </form>

      {run.state === 'failed' && (
        <ProblemMessage error={run.error} otherFieldErrors={otherErrors} detail={placedCount > 0 ? 'Check the fields marked above.' : undefined} />
      )}
      {run.state === 'done' && (
        <div className="output" role="status">
          <h3>Output</h3>
          <pre data-testid="tool-output" tabIndex={0}>
            {JSON.stringify(run.output, null, 2)}
          </pre>
        </div>
      )}
    </section>
  )
}
