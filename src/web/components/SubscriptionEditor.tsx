import { useEffect, useMemo, useState, type FormEvent } from 'react'
import { ApiError } from '../api.ts'
import { agentsApi, triggerPath, type Agent, type Subscription, type Trigger } from '../agents-api.ts'
import { groupFieldErrors } from '../field-errors.ts'
import { coerceValues, fieldsFromSchema, initialValues, type FormValues } from '../schema-form.ts'
import { formValuesOf, routeMappingErrors } from '../subscription-form.ts'
import { Banner } from './Banner.tsx'
import { DocsLink } from './DocsLink.tsx'
import { FieldShell, fieldAria } from './FieldShell.tsx'
import { Link } from './Link.tsx'
import { MappingEditor } from './MappingEditor.tsx'
import { FormProblem } from './ProblemMessage.tsx'
import { SchemaForm } from './SchemaForm.tsx'
import { MappingPreviewPanel, TestPanel } from './SubscriptionPanels.tsx'
import { SearchSelect, type SearchOption } from './SearchSelect.tsx'
import { IntegrationPicker } from './IntegrationPicker.tsx'

interface Props {
  agent: Agent
  triggers: readonly Trigger[]
  platformTitles: Record<string, string>
  /** Absent for a new trigger: the first save creates it, inactive. */
  subscription?: Subscription
  onSaved: (sub: Subscription) => void
  onClose: () => void
}

/** Plans as people read them: "Enterprise", not the stored "enterprise". */
const planName = (plan: string) => plan.charAt(0).toUpperCase() + plan.slice(1)
/** Said in the picker before a trigger is chosen, so a plan refusal is never the first news of it. */
const planNote = (t: Trigger) =>
  t.requiredPlan
    ? `${planName(t.requiredPlan)} plan${t.availableOnYourPlan === false ? ', not on yours' : ''}`
    : ''

/** Chooses a trigger, its integration and configuration, and maps its event onto the agent's inputs, with a live preview and a test. */
export function SubscriptionEditor({
  agent,
  triggers,
  platformTitles,
  subscription,
  onSaved,
  onClose,
}: Props) {
  const [triggerId, setTriggerId] = useState(subscription?.trigger_id ?? '')
  const trigger = triggers.find((t) => t.id === triggerId)
  const [integrationId, setIntegrationId] = useState(subscription?.integration_id ?? '')
  const fields = useMemo(() => (trigger ? fieldsFromSchema(trigger.configSchema) : []), [trigger])
  const [config, setConfig] = useState<FormValues>(() =>
    subscription && trigger ? formValuesOf(fields, subscription.config) : initialValues(fields),
  )
  const [mapping, setMapping] = useState<Record<string, string>>(() => subscription?.mapping ?? {})
  const [ownChanges, setOwnChanges] = useState(subscription?.start_on_own_changes ?? false)
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({})
  const [saveError, setSaveError] = useState<unknown>(null)
  const [saving, setSaving] = useState(false)
  const [savedNote, setSavedNote] = useState<string | null>(null)
  const platformTitle = trigger ? (platformTitles[trigger.platform] ?? trigger.platform) : ''
  // A new trigger the person's plan does not allow: said at once, with nothing to fill in first.
  const notOnPlan = !subscription && trigger?.availableOnYourPlan === false

  const triggerOptions: SearchOption[] = useMemo(
    () =>
      [...triggers]
        .map((t) => ({
          value: t.id,
          label: t.title,
          group: platformTitles[t.platform] ?? t.platform,
          description:
            [t.mode === 'polled' ? 'checked regularly' : '', planNote(t)].filter(Boolean).join(' · ') ||
            undefined,
        }))
        .sort((a, b) => a.group.localeCompare(b.group)),
    [triggers, platformTitles],
  )

  const chooseTrigger = (id: string) => {
    const next = triggers.find((t) => t.id === id)
    setTriggerId(id)
    setConfig(initialValues(next ? fieldsFromSchema(next.configSchema) : []))
    // The picker chooses one of the new trigger's platform's integrations.
    if (next?.platform !== trigger?.platform) setIntegrationId('')
  }
  // A stored subscription's trigger may arrive after the first render (the catalogue loads once).
  useEffect(() => {
    if (subscription && trigger)
      setConfig(formValuesOf(fieldsFromSchema(trigger.configSchema), subscription.config))
  }, [subscription?.id, !!trigger])

  const problem = saveError instanceof ApiError ? saveError.problem : undefined
  const configErrors = groupFieldErrors(
    problem?.errors,
    'config',
    fields.map((f) => f.name),
  )
  const mappingSaveErrors = routeMappingErrors(
    configErrors.other.filter((e) => /^(mapping|inputs)\b/.test(e.field)),
    agent.inputs.map((v) => v.name),
  )
  const integrationErrors = configErrors.other.filter((e) => e.field === 'integration').map((e) => e.message)
  const triggerErrors = configErrors.other.filter((e) => e.field === 'trigger').map((e) => e.message)
  const otherErrors = [
    ...configErrors.other.filter((e) => !/^(mapping|inputs|integration$|trigger$)/.test(e.field)),
    ...mappingSaveErrors.other,
  ]
  const configFieldErrors: Record<string, string[]> = { ...configErrors.byField }
  for (const [k, m] of Object.entries(localErrors)) configFieldErrors[k] = [m]
  const placed =
    Object.keys(configErrors.byField).length +
      Object.keys(mappingSaveErrors.byVariable).length +
      integrationErrors.length +
      triggerErrors.length >
    0

  // What Test and the running trigger use is the saved subscription: say when the form differs from it.
  const dirty =
    !!subscription &&
    !!trigger &&
    (integrationId !== subscription.integration_id ||
      ownChanges !== subscription.start_on_own_changes ||
      JSON.stringify(Object.entries(mapping).filter(([, t]) => t !== '')) !==
        JSON.stringify(Object.entries(subscription.mapping ?? {}).filter(([, t]) => t !== '')) ||
      JSON.stringify(coerceValues(fields, config).input) !==
        JSON.stringify(coerceValues(fields, formValuesOf(fields, subscription.config)).input))

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
        ? await agentsApi.changeSubscription(subscription.id, {
            integration: integrationId,
            config: input,
            mapping,
            start_on_own_changes: ownChanges,
          })
        : await agentsApi.subscribe(agent.id, {
            trigger: triggerId,
            integration: integrationId,
            config: input,
            mapping,
            start_on_own_changes: ownChanges,
          })
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
        <h3 id="subscription-editor-heading">
          {subscription ? `${subscription.trigger_title}: settings` : 'Add a trigger'}
        </h3>
        <button type="button" className="link-button" onClick={onClose}>
          Close
        </button>
      </div>
      <form onSubmit={save} noValidate>
        {!subscription && (
          <FieldShell
            id="subscription-trigger"
            label="Trigger"
            messages={triggerErrors}
            help={
              trigger
                ? [
                    trigger.description,
                    trigger.requiredPlan ? `Needs the ${planName(trigger.requiredPlan)} plan.` : '',
                  ]
                    .filter(Boolean)
                    .join(' ')
                : undefined
            }
          >
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
        {trigger && notOnPlan && (
          <Banner
            kind="info"
            title={`${trigger.title} needs the ${planName(trigger.requiredPlan ?? '')} plan, which your account is not on.`}
          >
            <p data-testid="plan-unavailable">
              An admin of this Switchyard can change your plan on the Users page; until then, choose another
              trigger.
            </p>
          </Banner>
        )}
        {trigger && !notOnPlan && (
          <>
            <p className="help">
              <DocsLink page={`triggers/${trigger.platform}.md`}>{platformTitle} triggers</DocsLink>: what
              fires each one, and what to check when it does not.
            </p>
            <FieldShell id="subscription-integration" label="Integration" messages={integrationErrors}>
              <IntegrationPicker
                aria={fieldAria('subscription-integration', integrationErrors)}
                name="integration"
                platform={trigger.platform}
                value={integrationId}
                onChange={setIntegrationId}
                chooseFirst
                empty={
                  <p className="help">
                    No {platformTitle} integration yet. <Link to="/integrations">Add one</Link> first.
                  </p>
                }
              />
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
                  pickers={
                    integrationId && trigger.fieldOptions
                      ? {
                          optionsBase: triggerPath(trigger.id),
                          integrationId,
                          fieldOptions: trigger.fieldOptions,
                        }
                      : undefined
                  }
                />
              </fieldset>
            )}
            <div className="field field-checkbox">
              <input
                type="checkbox"
                id="subscription-own-changes"
                name="start_on_own_changes"
                checked={ownChanges}
                aria-describedby="subscription-own-changes-help"
                onChange={(e) => setOwnChanges(e.target.checked)}
              />
              <label htmlFor="subscription-own-changes">
                Also start on changes made by this integration’s own account
              </label>
              <p className="help" id="subscription-own-changes-help">
                Off by default, so an agent that writes where it listens (say, a comment on the very item it
                watches) does not start itself again.
              </p>
            </div>
            <fieldset>
              <legend>Mapping: the event → the agent's inputs</legend>
              <MappingEditor
                variables={agent.inputs}
                mapping={mapping}
                onChange={setMapping}
                eventSchema={trigger.eventSchema}
                sample={trigger.sample}
                errors={mappingSaveErrors.byVariable}
              />
            </fieldset>
          </>
        )}
        <FormProblem error={saveError} hasFieldErrors={placed} otherFieldErrors={otherErrors} />
        {savedNote && (
          <p className="saved-note" role="status">
            {savedNote}
          </p>
        )}
        {!notOnPlan && (
          <div className="actions">
            <button type="submit" className="button-primary" disabled={saving || !trigger || !integrationId}>
              {saving ? 'Saving…' : subscription ? 'Save changes' : 'Save trigger'}
            </button>
            {dirty && !saving && (
              <span className="muted unsaved-note">
                Unsaved changes: the trigger and Test use the saved settings until you save.
              </span>
            )}
          </div>
        )}
      </form>
      {trigger && subscription && (
        <MappingPreviewPanel
          subscription={subscription}
          mapping={mapping}
          variables={agent.inputs.map((v) => v.name)}
        />
      )}
      {trigger && !subscription && !notOnPlan && (
        <p className="muted">
          Save the trigger to see its mapping applied to a sample event, and to test it.
        </p>
      )}
      {subscription && (
        <TestPanel
          subscription={subscription}
          platformTitle={platformTitle}
          variables={agent.inputs.map((v) => v.name)}
        />
      )}
    </section>
  )
}
