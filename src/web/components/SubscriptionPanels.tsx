import { useEffect, useState, type FormEvent } from 'react'
import {
  agentsApi,
  type MappingPreview,
  type SampleSent,
  type Subscription,
  type SubscriptionTest,
  type Trigger,
} from '../agents-api.ts'
import { runPath } from '../routes.ts'
import { routeMappingErrors } from '../subscription-form.ts'
import { Link } from './Link.tsx'
import { usePlatforms } from '../platform-titles.ts'
import { ProblemMessage } from './ProblemMessage.tsx'
import { CopyButton, JsonBlock } from './RunBits.tsx'

const PREVIEW_DELAY_MS = 400

/** The unsaved mapping applied to the trigger's sample event, as the person types (debounced). */
export function MappingPreviewPanel({
  subscription,
  mapping,
  variables,
}: {
  subscription: Subscription
  mapping: Record<string, string>
  variables: string[]
}) {
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
      {preview && (
        <MappedInputs
          inputs={preview.inputs}
          byVariable={routed.byVariable}
          other={routed.other.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message))}
          variables={variables}
        />
      )}
    </div>
  )
}

function MappedInputs({
  inputs,
  byVariable,
  other,
  variables,
}: {
  inputs: Record<string, unknown>
  byVariable: Record<string, string[]>
  other: string[]
  variables: string[]
}) {
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
                {value === undefined ? (
                  <span className="muted">not set</span>
                ) : typeof value === 'string' ? (
                  value
                ) : (
                  <code>{JSON.stringify(value)}</code>
                )}
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
export function TestPanel({
  subscription,
  platformTitle,
  variables,
}: {
  subscription: Subscription
  platformTitle: string
  variables: string[]
}) {
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
      <p className="help">
        Maps a recent real event from {platformTitle || 'the platform'} (or, when there is none, the sample)
        with the saved mapping. Nothing runs unless you start a test run.
      </p>
      <div className="actions">
        <button type="button" onClick={() => test(false)} disabled={busy !== null}>
          {busy === 'test' ? 'Testing…' : 'Test'}
        </button>
      </div>
      {error !== null && <ProblemMessage error={error} />}
      {result && (
        <div className="test-result">
          <p>
            <strong>
              {result.source === 'recent'
                ? `A recent real event from ${platformTitle}`
                : 'The trigger’s sample event'}
            </strong>
            {result.source === 'sample' && <span className="muted"> (no real event was found)</span>}
          </p>
          <JsonBlock label="The event" value={result.event} />
          <h5>Mapped inputs</h5>
          <MappedInputs
            inputs={result.inputs}
            byVariable={routed.byVariable}
            other={routed.other.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message))}
            variables={variables}
          />
          {result.run ? (
            <p className="saved-note" role="status">
              Test run started. <Link to={runPath(result.run.id)}>Open the test run</Link>
            </p>
          ) : (
            <div className="actions">
              <button
                type="button"
                className="button-primary"
                onClick={() => test(true)}
                disabled={busy !== null || result.errors.length > 0}
              >
                {busy === 'run' ? 'Starting…' : 'Start a test run'}
              </button>
            </div>
          )}
        </div>
      )}
    </div>
  )
}

/**
 * Where, in the platform's sandbox, this webhook is added (docs/sandbox.md "Home pages"): Vercel's
 * project webhook settings page for the first project the trigger is limited to, else the
 * sandbox's home page, which links each project's. Null unless the platform runs as a sandbox.
 */
export function sandboxWebhookPage(
  sandboxHome: string | null | undefined,
  subscription: Subscription,
): string | null {
  if (!sandboxHome) return null
  const projects = subscription.config.project_ids
  const project = Array.isArray(projects) && typeof projects[0] === 'string' ? projects[0] : null
  if (subscription.platform === 'vercel' && project)
    return `${sandboxHome}/projects/${encodeURIComponent(project)}/settings/webhooks`
  return sandboxHome
}

/**
 * For platforms whose webhooks the person sets up: the address to paste into the platform's
 * settings, and the secret the platform shows there, which lets Switchyard check each delivery.
 */
export function WebhookSetup({
  subscription,
  trigger,
  platformTitle,
  onSaved,
}: {
  subscription: Subscription
  trigger?: Trigger
  platformTitle: string
  onSaved: (sub: Subscription) => void
}) {
  const [secret, setSecret] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const [sample, setSample] = useState<SampleSent | null>(null)
  const [sampleError, setSampleError] = useState<unknown>(null)
  const platform = usePlatforms()?.find((p) => p.id === subscription.platform)
  if (!subscription.webhook_address) return null
  const sandboxPage =
    platform?.mode === 'sandbox' ? sandboxWebhookPage(platform.sandbox_home, subscription) : null
  const events = trigger?.manualWebhook?.events ?? []
  const sendSample = async () => {
    setSampleError(null)
    setSample(null)
    try {
      setSample(await agentsApi.sendSample(subscription.id))
    } catch (err) {
      setSampleError(err)
    }
  }
  const save = async (e: FormEvent) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    try {
      onSaved(await agentsApi.changeSubscription(subscription.id, { webhook_secret: secret.trim() || null }))
      setSecret('')
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }
  const id = `webhook-secret-${subscription.id}`
  return (
    <div className="webhook-setup">
      <h4>Set up the webhook at {platformTitle}</h4>
      <p>In {platformTitle}’s webhook settings, add a webhook that sends to this address:</p>
      {sandboxPage && (
        <p>
          This {platformTitle} is the local sandbox: add it on{' '}
          <a href={sandboxPage} target="_blank" rel="noreferrer" data-testid="sandbox-webhook-page">
            {sandboxPage.includes('/settings/webhooks')
              ? 'the sandbox’s webhook settings page'
              : 'the sandbox’s page, which links each project’s webhook settings'}
          </a>{' '}
          (sign in as a seeded user; the page lists them).
        </p>
      )}
      <p className="new-key">
        <code data-testid="webhook-address">{subscription.webhook_address}</code>
        <CopyButton text={subscription.webhook_address} />
      </p>
      {events.length > 0 && (
        <p>
          Tick {events.length === 1 ? 'the event' : 'the events'}{' '}
          {events.map((e, i) => (
            <span key={e}>
              {i > 0 && ', '}
              <code>{e}</code>
            </span>
          ))}
          , create the webhook, then paste the secret {platformTitle} shows once below.
        </p>
      )}
      <form className="field" onSubmit={save} noValidate>
        <label htmlFor={id}>The signing secret {platformTitle} shows for it</label>
        <div className="secret-input">
          <input
            id={id}
            type="password"
            autoComplete="off"
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
            aria-describedby={`${id}-help`}
          />
          <button type="submit" disabled={busy || !secret.trim()}>
            Save secret
          </button>
        </div>
        <p className="help" id={`${id}-help`}>
          {subscription.webhook_secret_set
            ? 'A secret is saved: deliveries are checked with it. Paste a new one to replace it.'
            : 'No secret yet: every delivery is refused until you paste it, because its signature cannot be checked.'}
        </p>
      </form>
      {error !== null && <ProblemMessage error={error} />}
      {trigger?.manualWebhook?.sendSample && (
        <div className="send-sample">
          <p className="help">
            {platformTitle} has no test button: Switchyard (not {platformTitle}) signs a realistic event with
            the saved secret and sends it to the address above, through the same checks a real delivery meets.
            It shows that the address, the saved secret and the mapping work together, not that{' '}
            {platformTitle}’s webhook is set up: its runs really run their steps.
          </p>
          <button
            type="button"
            onClick={sendSample}
            disabled={!subscription.webhook_secret_set || subscription.status !== 'active'}
          >
            Send sample event
          </button>
          {(!subscription.webhook_secret_set || subscription.status !== 'active') && (
            <span className="muted">
              {' '}
              {!subscription.webhook_secret_set ? 'Save the secret first.' : 'Activate the trigger first.'}
            </span>
          )}
          {sampleError !== null && <ProblemMessage error={sampleError} />}
          {sample && (
            <div role="status" data-testid="sample-result">
              <p>{sample.message}</p>
              <p>
                The address answered {sample.status};{' '}
                {sample.runs.length === 0
                  ? 'no run started.'
                  : `${sample.runs.length === 1 ? 'a run' : `${sample.runs.length} runs`} started:`}
              </p>
              <ul className="item-list">
                {sample.runs.map((r) => (
                  <li key={r.id}>
                    <Link to={runPath(r.id)}>Run {r.id}</Link> with inputs{' '}
                    <code>{JSON.stringify(r.inputs)}</code>
                    {r.error && <span className="entry-error-inline"> · {r.error.message}</span>}
                  </li>
                ))}
              </ul>
            </div>
          )}
        </div>
      )}
    </div>
  )
}
