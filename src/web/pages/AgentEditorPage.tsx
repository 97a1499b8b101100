import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react'
import { api, ApiError, type Tool } from '../api.ts'
import { agentsApi, type Agent } from '../agents-api.ts'
import { errorsUnder, routeAgentErrors } from '../agent-errors.ts'
import {
  agentInputOf,
  emptyAgentForm,
  emptyStep,
  formOfAgent,
  moved,
  nextStepKey,
  type AgentForm,
  type StepRow,
} from '../agent-form.ts'
import { OutputEditor, SecretOnce, TemplateHelp, VariablesEditor } from '../components/AgentFormParts.tsx'
import { FieldErrorText } from '../components/FieldErrorText.tsx'
import { FieldShell, fieldAria } from '../components/FieldShell.tsx'
import { Link } from '../components/Link.tsx'
import { ModelAgentEditor } from '../components/ModelAgentEditor.tsx'
import { FormProblem, ProblemMessage } from '../components/ProblemMessage.tsx'
import type { SearchOption } from '../components/SearchSelect.tsx'
import { StepEditor } from '../components/StepEditor.tsx'
import { usePlatformTitles } from '../platform-titles.ts'
import { navigate } from '../router.ts'
import { agentPath } from '../routes.ts'
import {
  modelConnectionsApi,
  onConnectionsChanged,
  SANDBOX_MODEL_NAMES,
  type ModelConnection,
} from '../model-connections-api.ts'
import { fieldsFromSchema, type FormField } from '../schema-form.ts'
import { withQuery } from '../url-state.ts'

type Loaded = {
  tools: Tool[]
  connections: ModelConnection[]
  agent: Agent | null
}

/** Creates an agent (`id` absent) or edits one; saving makes a new version. */
export function AgentEditorPage({ id }: { id?: string }) {
  const [loaded, setLoaded] = useState<Loaded | null>(null)
  const [loadError, setLoadError] = useState<unknown>(null)
  const [form, setForm] = useState<AgentForm>(emptyAgentForm)
  const [saving, setSaving] = useState(false)
  const [saveError, setSaveError] = useState<unknown>(null)
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({})
  const [created, setCreated] = useState<Agent | null>(null)
  const platformTitles = usePlatformTitles()

  // A connection added in another tab (the model picker's "Add a model connection") shows up here.
  useEffect(
    () =>
      onConnectionsChanged(() =>
        modelConnectionsApi.list().then(
          (connections) => setLoaded((l) => (l ? { ...l, connections } : l)),
          () => undefined, // the list already shown stays
        ),
      ),
    [],
  )

  useEffect(() => {
    document.title = `${id ? 'Edit agent' : 'New agent'} · Switchyard`
    let live = true
    Promise.all([
      api.searchTools(''),
      modelConnectionsApi.list(),
      id ? agentsApi.get(id) : Promise.resolve(null),
    ]).then(
      ([tools, connections, agent]) => {
        if (!live) return
        setLoaded({ tools, connections, agent })
        if (!agent) {
          // A new model agent starts on the only model there is, or on the sandbox one a newcomer has.
          const first = connections.length === 1 ? connections[0] : connections.find((c) => c.sandbox)
          if (first)
            setForm((f) => ({
              ...f,
              model: {
                ...f.model,
                connection: first.id,
                modelName: first.sandbox ? SANDBOX_MODEL_NAMES[0] : '',
              },
            }))
        }
        if (agent) {
          const byId = new Map(tools.map((t) => [t.id, fieldsFromSchema(t.inputSchema)]))
          const form = formOfAgent(agent, (t) => byId.get(t))
          // One named by account name over the API is found by that name by its picker.
          setForm(form)
          document.title = `Edit ${agent.name} · Switchyard`
        }
      },
      (e) => live && setLoadError(e),
    )
    return () => {
      live = false
    }
  }, [id])

  const fieldsByTool = useMemo(
    () => new Map((loaded?.tools ?? []).map((t) => [t.id, fieldsFromSchema(t.inputSchema)])),
    [loaded],
  )
  const fieldsOf = (toolId: string): readonly FormField[] | undefined => fieldsByTool.get(toolId)
  const toolOf = (toolId: string) => loaded?.tools.find((t) => t.id === toolId)
  // Legacy steps are offered only where a step already uses one (new work takes their successors).
  const usedTools = [...form.steps.map((s) => s.tool), ...form.model.tools.map((t) => t.tool)].join('\n')
  const toolOptions: SearchOption[] = useMemo(
    () =>
      (loaded?.tools ?? [])
        .filter((t) => !t.legacy || usedTools.split('\n').includes(t.id))
        .map((t) => ({
          value: t.id,
          label: t.legacy ? `${t.title} (legacy)` : t.title,
          group: platformTitles[t.platform] ?? t.platform,
        }))
        .sort((a, b) => a.group.localeCompare(b.group)),
    [loaded, platformTitles, usedTools],
  )

  const variableKey = form.inputs.map((v) => v.name.trim()).join('\n')
  const variableNames = useMemo(() => variableKey.split('\n').filter(Boolean), [variableKey])
  const problem = saveError instanceof ApiError ? saveError.problem : undefined
  const shape = {
    kind: form.kind,
    inputCount: form.inputs.length,
    stepFields: form.steps.map((s) =>
      s.inputMode === 'form' ? (fieldsOf(s.tool) ?? []).map((f) => f.name) : null,
    ),
    outputNames: form.output.map((o) => o.name.trim()),
    toolCount: form.model.tools.length,
  }
  const routed = routeAgentErrors(problem?.errors, shape)
  const at: Record<string, string[]> = { ...routed.at }
  for (const [place, message] of Object.entries(localErrors)) at[place] = [message]
  const placed = Object.keys(routed.at).length > 0

  const setStep = (i: number, step: StepRow) =>
    setForm((f) => ({ ...f, steps: f.steps.map((s, j) => (j === i ? step : s)) }))

  const focusFirstError = useRef(false)
  useEffect(() => {
    if (!focusFirstError.current) return
    focusFirstError.current = false
    document.querySelector<HTMLElement>('.agent-editor [aria-invalid="true"]')?.focus()
  })

  const save = async (e: FormEvent) => {
    e.preventDefault()
    const { input, errors } = agentInputOf(form, fieldsOf, toolOf)
    setLocalErrors(errors)
    setSaveError(null)
    if (Object.keys(errors).length > 0) {
      focusFirstError.current = true
      return
    }
    setSaving(true)
    try {
      const agent = id ? await agentsApi.update(id, input) : await agentsApi.create(input)
      if (agent.signing_secret) setCreated(agent)
      else navigate(withQuery(agentPath(agent.id), { saved: String(agent.version) }))
    } catch (error) {
      setSaveError(error)
      focusFirstError.current = true
    } finally {
      setSaving(false)
    }
  }

  if (created) {
    return (
      <>
        <div className="page-header">
          <h1 tabIndex={-1}>{created.name}</h1>
        </div>
        <p>Saved as version {created.version}.</p>
        <SecretOnce secret={created.signing_secret!} />
        <Link className="button" to={agentPath(created.id)}>
          I have copied it: go to the agent
        </Link>
      </>
    )
  }

  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>{id ? `Edit ${loaded?.agent?.name ?? 'agent'}` : 'New agent'}</h1>
        {id && loaded?.agent && (
          <span className="muted">Saving makes version {loaded.agent.version + 1}</span>
        )}
      </div>
      {loadError !== null && <ProblemMessage error={loadError} />}
      {!loaded && loadError === null && <p className="muted">Loading…</p>}
      {loaded && (
        <form className="agent-editor" onSubmit={save} noValidate>
          <section className="panel">
            <FieldShell id="agent-name" label="Name" messages={at.name}>
              <input
                type="text"
                {...fieldAria('agent-name', at.name)}
                name="name"
                value={form.name}
                maxLength={100}
                autoComplete="off"
                onChange={(e) => setForm({ ...form, name: e.target.value })}
              />
            </FieldShell>
            <FieldShell id="agent-description" label="Description" optional messages={at.description}>
              <textarea
                {...fieldAria('agent-description', at.description)}
                name="description"
                rows={2}
                value={form.description}
                onChange={(e) => setForm({ ...form, description: e.target.value })}
              />
            </FieldShell>
            <VariablesEditor
              rows={form.inputs}
              errors={at}
              onChange={(inputs) => setForm({ ...form, inputs })}
            />
          </section>

          <section className="panel">
            <fieldset>
              <legend>What the agent does</legend>
              <div className="method-picker kind-picker">
                <label className="method-option">
                  <input
                    type="radio"
                    name="kind"
                    value="steps"
                    checked={form.kind === 'steps'}
                    onChange={() => setForm({ ...form, kind: 'steps' })}
                  />
                  <span className="method-title">Steps</span>
                  <span className="help">Runs tool steps in order, on your integrations.</span>
                </label>
                <label className="method-option">
                  <input
                    type="radio"
                    name="kind"
                    value="model"
                    checked={form.kind === 'model'}
                    onChange={() => setForm({ ...form, kind: 'model' })}
                  />
                  <span className="method-title">Model</span>
                  <span className="help">
                    A language model works through tool steps you allow, within a budget; destructive calls
                    wait for your approval.
                  </span>
                </label>
                <label className="method-option">
                  <input
                    type="radio"
                    name="kind"
                    value="external"
                    checked={form.kind === 'external'}
                    onChange={() => setForm({ ...form, kind: 'external' })}
                  />
                  <span className="method-title">External</span>
                  <span className="help">
                    Sends each run to your own service, which reports back when done.
                  </span>
                </label>
              </div>
              <FieldErrorText id="agent-kind-error" messages={at.kind} />
            </fieldset>

            {form.kind === 'steps' ? (
              <>
                <h2>Steps</h2>
                <TemplateHelp />
                {at.steps && <p className="field-error">{at.steps.join(' ')}</p>}
                {form.steps.length === 0 && <p className="empty">No steps yet.</p>}
                <ol className="step-list">
                  {form.steps.map((s, i) => (
                    <StepEditor
                      key={s.id}
                      index={i}
                      count={form.steps.length}
                      step={s}
                      tools={loaded.tools}
                      toolOptions={toolOptions}
                      platformTitles={platformTitles}
                      errors={{ '': at[`steps.${i}`] ?? [], ...errorsUnder(at, `steps.${i}`) }}
                      variables={variableNames}
                      earlierSteps={form.steps.slice(0, i)}
                      onChange={(step) => setStep(i, step)}
                      onMove={(by) => setForm((f) => ({ ...f, steps: moved(f.steps, i, by) }))}
                      onRemove={() => setForm((f) => ({ ...f, steps: f.steps.filter((_, j) => j !== i) }))}
                    />
                  ))}
                </ol>
                <button
                  type="button"
                  onClick={() =>
                    setForm((f) => ({ ...f, steps: [...f.steps, emptyStep(nextStepKey(f.steps))] }))
                  }
                >
                  Add step
                </button>
                <OutputEditor
                  rows={form.output}
                  errors={at}
                  onChange={(output) => setForm({ ...form, output })}
                />
              </>
            ) : form.kind === 'model' ? (
              <ModelAgentEditor
                form={form.model}
                onChange={(model) => setForm((f) => ({ ...f, model }))}
                connections={loaded.connections}
                tools={loaded.tools}
                toolOptions={toolOptions}
                platformTitles={platformTitles}
                variables={variableNames}
                errors={at}
              />
            ) : (
              <FieldShell
                id="agent-url"
                label="Your service's address"
                help="Switchyard sends each run here as a signed POST (Standard Webhooks); your service answers at the run's complete address with the result."
                messages={at.url}
              >
                <input
                  type="text"
                  inputMode="url"
                  {...fieldAria('agent-url', at.url, true)}
                  name="url"
                  value={form.url}
                  placeholder="https://agents.example.com/switchyard"
                  autoComplete="off"
                  onChange={(e) => setForm({ ...form, url: e.target.value })}
                />
              </FieldShell>
            )}
          </section>

          <FormProblem error={saveError} hasFieldErrors={placed} otherFieldErrors={routed.other} />
          {Object.keys(localErrors).length > 0 && (
            <p className="field-error">Check the fields marked above.</p>
          )}
          <div className="actions">
            <button type="submit" className="button-primary" disabled={saving}>
              {saving ? 'Saving…' : id ? 'Save new version' : 'Create agent'}
            </button>
            <Link className="button-secondary" to={id ? agentPath(id) : '/agents'}>
              Cancel
            </Link>
          </div>
        </form>
      )}
    </>
  )
}
