import { useEffect, useMemo, useState, type FormEvent } from 'react'
import { ApiError, type Integration } from '../api.ts'
import { agentsApi, triggerPath, type Agent, type MappingPreview, type Subscription, type SubscriptionTest, type Trigger } from '../agents-api.ts'
import { groupFieldErrors } from '../field-errors.ts'
import { runPath } from '../routes.ts'
import { coerceValues, fieldsFromSchema, initialValues, type FormValues } from '../schema-form.ts'
import { formValuesOf, routeMappingErrors } from '../subscription-form.ts'
import { FieldShell, fieldAria } from './FieldShell.tsx'
import { Link } from './Link.tsx'
import { MappingEditor } from './MappingEditor.tsx'
import { FormProblem, ProblemMessage } from './ProblemMessage.tsx'
import { JsonBlock } from './RunBits.tsx'
import { SchemaForm } from './SchemaForm.tsx'
import { SearchSelect, type SearchOption } from './SearchSelect.tsx'
import { integrationsFor } from './StepEditor.tsx'

const PREVIEW_DELAY_MS = 400
const STATUS_NOTE: Record<string, string> = { needs_reconnection: ' (needs reconnection)', disconnected: ' (disconnected)' }

interface Props {
  agent: Agent
  triggers: readonly Trigger[]
  integrations: readonly Integration[]
  platformTitles: Record<string, string>
  /** Absent for a new trigger: the first save creates it, inactive. */
  subscription?: Subscription
  onSaved: (sub: Subscription) => void
  onClose: () => void
}

/** Chooses a trigger, its integration and configuration, and maps its event onto the agent's inputs, with a live preview and a test. */
export function SubscriptionEditor({ agent, triggers, integrations, platformTitles, subscription, onSaved, onClose }: Props) {
  const [triggerId, setTriggerId] = useState(subscription?.trigger_id ?? '')
  const trigger = triggers.find((t) => t.id === triggerId)
  const choices = integrationsFor(integrations, trigger?.platform)
  const [integrationId, setIntegrationId] = useState(subscription?.integration_id ?? '')
  const fields = useMemo(() => (trigger ? fieldsFromSchema(trigger.configSchema) : []), [trigger])
  const [config, setConfig] = useState<FormValues>(() => (subscription && trigger ? formValuesOf(fields, subscription.config) : initialValues(fields)))
  const [mapping, setMapping] = useState<Record<string, string>>(() => subscription?.mapping ?? {})
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({})
  const [saveError, setSaveError] = useState<unknown>(null)
  const [saving, setSaving] = useState(false)
  const [savedNote, setSavedNote] = useState<string | null>(null)
  const platformTitle = trigger ? platformTitles[trigger.platform] ?? trigger.platform : ''

  const triggerOptions: SearchOption[] = useMemo(
    () =>
      [...triggers]
        .map((t) => ({ value: t.id, label: t.title, group: platformTitles[t.platform] ?? t.platform, description: t.mode === 'polled' ? 'checked regularly' : undefined }))
        .sort((a, b) => a.group.localeCompare(b.group)),
    [triggers, platformTitles],
  )

  const chooseTrigger = (id: string) => {
    const next = triggers.find((t) => t.id === id)
    setTriggerId(id)
    setConfig(initialValues(next ? fieldsFromSchema(next.configSchema) : []))
    const usable = integrationsFor(integrations, next?.platform)
    setIntegrationId((usable.find((i) => i.status === 'active') ?? usable[0])?.id ?? '')
  }
  // A stored subscription's trigger may arrive after the first render (the catalogue loads once).
  useEffect(() => {
    if (subscription && trigger) setConfig(formValuesOf(fieldsFromSchema(trigger.configSchema), subscription.config))
  }, [subscription?.id, !!trigger])

  const problem = saveError instanceof ApiError ? saveError.problem : undefined
  const configErrors = groupFieldErrors(problem?.errors, 'config', fields.map((f) => f.name))
  const mappingSaveErrors = routeMappingErrors(
    configErrors.other.filter((e) => /^(mapping|inputs)\b/.test(e.field)),
    agent.inputs.map((v) => v.name),
  )
  const integrationErrors = configErrors.other.filter((e) => e.field === 'integration').map((e) => e.message)
  const triggerErrors = configErrors.other.filter((e) => e.field === 'trigger').map((e) => e.message)
  const otherErrors = [...configErrors.other.filter((e) => !/^(mapping|inputs|integration$|trigger$)/.test(e.field)), ...mappingSaveErrors.other]
  const configFieldErrors: Record<string, string[]> = { ...configErrors.byField }
  for (const [k, m] of Object.entries(localErrors)) configFieldErrors[k] = [m]
  const placed = Object.keys(configErrors.byField).length + Object.keys(mappingSaveErrors.byVariable).length + integrationErrors.length + triggerErrors.length > 0

  // What Test and the running trigger use is the saved subscription: say when the form differs from it.
  const dirty =
    !!subscription &&
    !!trigger &&
    (integrationId !== subscription.integration_id ||
      JSON.stringify(Object.entries(mapping).filter(([, t]) => t !== '')) !== JSON.stringify(Object.entries(subscription.mapping ?? {}).filter(([, t]) => t !== '')) ||
      JSON.stringify(coerceValues(fields, config).input) !== JSON.stringify(coerceValues(fields, formValuesOf(fields, subscription.config)).input))

  const save = async (e: FormEvent) => {
    e.preventDefault()
    const { input, errors } = coerceValues(fields, config)
    setLocalErrors(errors)
    setSavedNote(null)
    if (Object.keys(errors).length > 0) return
    setSaving(true)
    setSaveError(null)
    try {
      const sub = subscription
        ? await agentsApi.changeSubscription(subscription.id, { integration: integrationId, config: input, mapping })
        : await agentsApi.subscribe(agent.id, { trigger: triggerId, integration: integrationId, config: input, mapping })
      setSavedNote(subscription ? 'Saved.' : null)
      onSaved(sub)
    } catch (err) {
      setSaveError(err)
    } finally {
      setSaving(false)
    }
  }

  return (
    <section className="panel subscription-editor" aria-labelledby="subscription-editor-heading">
      <div className="health-head editor-head">
        <h3 id="subscription-editor-heading">{subscription ? `${subscription.trigger_title}: settings` : 'Add a trigger'}</h3>
        <button type="button" className="link-button" onClick={onClose}>
          Close
        </button>
      </div>
      <form onSubmit={save} noValidate>
        {!subscription && (
          <FieldShell id="subscription-trigger" label="Trigger" messages={triggerErrors} help={trigger?.description}>
            <SearchSelect
              id="subscription-trigger"
              name="trigger"
              options={triggerOptions}
              value={triggerId}
              placeholder="Search triggers, e.g. new card"
              invalid={triggerErrors.length > 0}
              describedBy={triggerErrors.length > 0 ? 'subscription-trigger-error' : undefined}
              onChange={chooseTrigger}
            />
          </FieldShell>
        )}
        {trigger && (
          <>
            <FieldShell id="subscription-integration" label="Integration" messages={integrationErrors}>
              {choices.length === 0 ? (
                <p className="help">
                  No {platformTitle} integration yet. <Link to="/integrations">Add one</Link> first.
                </p>
              ) : (
                <select {...fieldAria('subscription-integration', integrationErrors)} name="integration" value={integrationId} onChange={(e) => setIntegrationId(e.target.value)}>
                  {choices.map((i) => (
                    <option key={i.id} value={i.id}>
                      {i.account_name}
                      {STATUS_NOTE[i.status] ?? ''}
                    </option>
                  ))}
                </select>
              )}
            </FieldShell>
            {fields.length > 0 && (
              <fieldset>
                <legend>Configuration</legend>
                <SchemaForm
                  formId="subscription-config"
                  fields={fields}
                  values={config}
                  onChange={(name, value) => setConfig((c) => ({ ...c, [name]: value }))}
                  errors={configFieldErrors}
                  pickers={integrationId && trigger.fieldOptions ? { optionsBase: triggerPath(trigger.id), integrationId, fieldOptions: trigger.fieldOptions } : undefined}
                />
              </fieldset>
            )}
            <fieldset>
              <legend>Mapping: the event → the agent's inputs</legend>
              <MappingEditor variables={agent.inputs} mapping={mapping} onChange={setMapping} eventSchema={trigger.eventSchema} sample={trigger.sample} errors={mappingSaveErrors.byVariable} />
            </fieldset>
          </>
        )}
        <FormProblem error={saveError} hasFieldErrors={placed} otherFieldErrors={otherErrors} />
        {savedNote && (
          <p className="saved-note" role="status">
            {savedNote}
          </p>
        )}
        <div className="actions">
          <button type="submit" className="button-primary" disabled={saving || !trigger || !integrationId}>
            {saving ? 'Saving…' : subscription ? 'Save changes' : 'Save trigger'}
          </button>
          {dirty && !saving && <span className="muted unsaved-note">Unsaved changes: the trigger and Test use the saved settings until you save.</span>}
        </div>
      </form>
      {trigger && subscription && <Preview subscription={subscription} mapping={mapping} variables={agent.inputs.map((v) => v.name)} />}
      {trigger && !subscription && <p className="muted">Save the trigger to see its mapping applied to a sample event, and to test it.</p>}
      {subscription && <TestPanel subscription={subscription} platformTitle={platformTitle} variables={agent.inputs.map((v) => v.name)} />}
    </section>
  )
}

/** The unsaved mapping applied to the trigger's sample event, as the person types (debounced). */
function Preview({ subscription, mapping, variables }: { subscription: Subscription; mapping: Record<string, string>; variables: string[] }) {
  const [preview, setPreview] = useState<MappingPreview | null>(null)
  const [error, setError] = useState<unknown>(null)
  const key = JSON.stringify(mapping)
  useEffect(() => {
    const controller = new AbortController()
    const timer = setTimeout(() => {
      agentsApi.preview(subscription.id, { mapping }, controller.signal).then(
        (p) => {
          setPreview(p)
          setError(null)
        },
        (e) => !controller.signal.aborted && setError(e),
      )
    }, PREVIEW_DELAY_MS)
    return () => {
      clearTimeout(timer)
      controller.abort()
    }
  }, [subscription.id, key])

  const routed = routeMappingErrors(preview?.errors, variables)
  return (
    <div className="preview" aria-live="polite" data-testid="mapping-preview">
      <h4>Preview with a sample event</h4>
      {error !== null && <ProblemMessage error={error} />}
      {!preview && error === null && <p className="muted">Working it out…</p>}
      {preview && <MappedInputs inputs={preview.inputs} byVariable={routed.byVariable} other={routed.other.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message))} variables={variables} />}
    </div>
  )
}

function MappedInputs({ inputs, byVariable, other, variables }: { inputs: Record<string, unknown>; byVariable: Record<string, string[]>; other: string[]; variables: string[] }) {
  const names = [...new Set([...variables, ...Object.keys(inputs ?? {})])]
  return (
    <>
      <dl className="value-list mapped-inputs">
        {names.map((name) => {
          const value = inputs?.[name]
          return (
            <div key={name} className={byVariable[name] ? 'mapped-error' : undefined}>
              <dt>
                <code>{name}</code>
              </dt>
              <dd>
                {value === undefined ? <span className="muted">not set</span> : typeof value === 'string' ? value : <code>{JSON.stringify(value)}</code>}
                {byVariable[name] && <span className="field-error"> {byVariable[name].join(' ')}</span>}
              </dd>
            </div>
          )
        })}
      </dl>
      {other.length > 0 && (
        <ul className="problem-fields field-error">
          {other.map((m, i) => (
            <li key={i}>{m}</li>
          ))}
        </ul>
      )}
    </>
  )
}

/** Runs the trigger once by hand: a recent real event where the platform has one, else the sample. */
function TestPanel({ subscription, platformTitle, variables }: { subscription: Subscription; platformTitle: string; variables: string[] }) {
  const [result, setResult] = useState<SubscriptionTest | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState<'test' | 'run' | null>(null)

  const test = async (startRun: boolean) => {
    setBusy(startRun ? 'run' : 'test')
    setError(null)
    try {
      setResult(await agentsApi.test(subscription.id, startRun))
    } catch (e) {
      setError(e)
    } finally {
      setBusy(null)
    }
  }
  const routed = routeMappingErrors(result?.errors, variables)
  return (
    <div className="test-panel" data-testid="test-panel">
      <h4>Test</h4>
      <p className="help">Maps a recent real event from {platformTitle || 'the platform'} (or, when there is none, the sample) with the saved mapping. Nothing runs unless you start a test run.</p>
      <div className="actions">
        <button type="button" onClick={() => test(false)} disabled={busy !== null}>
          {busy === 'test' ? 'Testing…' : 'Test'}
        </button>
      </div>
      {error !== null && <ProblemMessage error={error} />}
      {result && (
        <div className="test-result">
          <p>
            <strong>{result.source === 'recent' ? `A recent real event from ${platformTitle}` : 'The trigger’s sample event'}</strong>
            {result.source === 'sample' && <span className="muted"> (no real event was found)</span>}
          </p>
          <JsonBlock label="The event" value={result.event} />
          <h5>Mapped inputs</h5>
          <MappedInputs inputs={result.inputs} byVariable={routed.byVariable} other={routed.other.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message))} variables={variables} />
          {result.run ? (
            <p className="saved-note" role="status">
              Test run started. <Link to={runPath(result.run.id)}>Open the test run</Link>
            </p>
          ) : (
            <div className="actions">
              <button type="button" className="button-primary" onClick={() => test(true)} disabled={busy !== null || result.errors.length > 0}>
                {busy === 'run' ? 'Starting…' : 'Start a test run'}
              </button>
            </div>
          )}
        </div>
      )}
    </div>
  )
}
