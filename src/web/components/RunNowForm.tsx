import { useMemo, useState, type FormEvent } from 'react'
import { ApiError } from '../api.ts'
import { agentsApi, type Agent } from '../agents-api.ts'
import { schemaOfVariables } from '../agent-form.ts'
import { groupFieldErrors } from '../field-errors.ts'
import { navigate } from '../router.ts'
import { runPath } from '../routes.ts'
import { coerceValues, fieldsFromSchema, initialValues, type FormValues } from '../schema-form.ts'
import { FormProblem } from './ProblemMessage.tsx'
import { SchemaForm } from './SchemaForm.tsx'

/** The form for the agent's input variables; starting the run goes to its page. */
export function RunNowForm({ agent, onCancel }: { agent: Agent; onCancel: () => void }) {
  const fields = useMemo(() => fieldsFromSchema(schemaOfVariables(agent.inputs)), [agent.inputs])
  const [values, setValues] = useState<FormValues>(() => initialValues(fields))
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({})
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const problem = error instanceof ApiError ? error.problem : undefined
  const grouped = groupFieldErrors(
    problem?.errors,
    'inputs',
    fields.map((f) => f.name),
  )
  const errors: Record<string, string[]> = { ...grouped.byField }
  for (const [k, m] of Object.entries(localErrors)) errors[k] = [m]

  const start = async (e: FormEvent) => {
    e.preventDefault()
    const { input, errors: local } = coerceValues(fields, values)
    // The server takes an empty text as a value; a person leaving a required input empty meant to fill it.
    for (const f of fields)
      if (f.required && typeof values[f.name] === 'string' && (values[f.name] as string).trim() === '')
        local[f.name] ??= 'Required: give a value.'
    setLocalErrors(local)
    if (Object.keys(local).length > 0) return
    setBusy(true)
    setError(null)
    try {
      const run = await agentsApi.start(agent.id, input)
      navigate(runPath(run.id))
    } catch (err) {
      setError(err)
      setBusy(false)
    }
  }

  return (
    <section className="panel run-now" aria-labelledby="run-now-heading">
      <h2 id="run-now-heading">Run {agent.name}</h2>
      <form onSubmit={start} noValidate>
        <SchemaForm
          formId="run-now"
          fields={fields}
          values={values}
          onChange={(name, value) => setValues((v) => ({ ...v, [name]: value }))}
          errors={errors}
          disabled={busy}
        />
        {fields.length === 0 && <p className="help">This agent takes no inputs.</p>}
        <FormProblem
          error={error}
          hasFieldErrors={Object.keys(grouped.byField).length > 0}
          otherFieldErrors={grouped.other}
        />
        <div className="actions">
          <button type="submit" className="button-primary" disabled={busy}>
            {busy ? 'Starting…' : 'Start run'}
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  )
}
