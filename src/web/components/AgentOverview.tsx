import { useEffect, useState } from 'react'
import { agentsApi, type Agent, type AgentVersion, type Subscription } from '../agents-api.ts'
import { templateText } from '../agent-form.ts'
import { api } from '../api.ts'
import { modelConnectionsApi } from '../model-connections-api.ts'
import { agentPath } from '../routes.ts'
import { formatTime } from '../run-format.ts'
import { humanize } from '../schema-form.ts'
import { withQuery } from '../url-state.ts'
import { SecretOnce } from './AgentFormParts.tsx'
import { ConfirmButton } from './ConfirmButton.tsx'
import { Link } from './Link.tsx'
import { OptionValue } from './OptionValue.tsx'
import { ProblemMessage } from './ProblemMessage.tsx'
import { RunStatusBadge } from './RunBits.tsx'

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  number: 'number',
  boolean: 'yes / no',
  object: 'object',
  array: 'list',
}

/** An agent's definition in words (this version or an earlier one), its triggers and its versions. */
export function AgentOverview({ agent, current }: { agent: Agent; current: Agent }) {
  const [versions, setVersions] = useState<AgentVersion[] | null>(null)
  useEffect(() => {
    agentsApi.versions(current.id).then(setVersions, () => setVersions([]))
  }, [current.id, current.version])
  const old = agent.version !== current.version

  return (
    <div className="overview-layout">
      <section className="panel overview-definition" aria-labelledby="definition-heading">
        <h2 id="definition-heading">
          Version {agent.version}
          {old ? (
            <span className="muted"> (an earlier version; the agent runs version {current.version})</span>
          ) : (
            <span className="muted"> (current)</span>
          )}
        </h2>
        {old && agent.description !== current.description && (
          <p className="agent-description">
            {agent.description || <span className="muted">No description.</span>}
          </p>
        )}
        <h3>Input variables</h3>
        {agent.inputs.length === 0 ? (
          <p className="muted">None.</p>
        ) : (
          <ul className="plain-list">
            {agent.inputs.map((v) => (
              <li key={v.name}>
                <code>{v.name}</code>{' '}
                <span className="muted">
                  {TYPE_WORDS[v.type] ?? v.type}
                  {v.required ? ', required' : ', optional'}
                </span>
                {v.description && <span> · {v.description}</span>}
              </li>
            ))}
          </ul>
        )}
        {agent.kind === 'model' ? (
          <ModelDefinition agent={agent} />
        ) : agent.kind === 'external' ? (
          <>
            <h3>External service</h3>
            <p className="wrap-anywhere">
              Each run is sent to <code>{agent.external?.url}</code>.
            </p>
            {!old && <NewSigningSecret agentId={agent.id} />}
          </>
        ) : (
          <>
            <h3>Steps</h3>
            {(agent.steps ?? []).length === 0 && <p className="muted">No steps.</p>}
            <ol className="overview-steps">
              {(agent.steps ?? []).map((s) => (
                <li key={s.key}>
                  <span className="item-title">{s.tool_title ?? s.tool}</span>{' '}
                  <span className="muted">on {s.integration_name ?? 'an integration'}</span>{' '}
                  <code className="step-key">{s.key}</code>
                  {Object.keys(s.input ?? {}).length > 0 && (
                    <ul className="step-input-summary">
                      {Object.entries(s.input).map(([field, value]) => (
                        <li key={field}>
                          <span className="muted">{humanize(field)}:</span>{' '}
                          {typeof value === 'string' ? (
                            <OptionValue
                              tool={s.tool}
                              integration={s.integration}
                              field={field}
                              value={value}
                              input={s.input}
                            />
                          ) : (
                            <code>{JSON.stringify(value)}</code>
                          )}
                        </li>
                      ))}
                    </ul>
                  )}
                  {s.condition && (
                    <p className="help">
                      Only when <code>{s.condition}</code>
                    </p>
                  )}
                  {s.on_failure === 'continue' && <p className="help">Goes on when it fails.</p>}
                </li>
              ))}
            </ol>
            {agent.output && Object.keys(agent.output).length > 0 && (
              <>
                <h3>Result</h3>
                <ul className="plain-list">
                  {Object.entries(agent.output).map(([name, template]) => (
                    <li key={name} className="wrap-anywhere">
                      <code>{name}</code> ← <code>{templateText(template)}</code>
                    </li>
                  ))}
                </ul>
              </>
            )}
          </>
        )}
      </section>
      <div className="overview-side">
        <OverviewTriggers agentId={current.id} />
        <section className="panel overview-versions" aria-labelledby="versions-heading">
          <h2 id="versions-heading">Versions</h2>
          {versions === null && <p className="muted">Loading…</p>}
          {versions && (
            <ul className="plain-list">
              {versions.map((v) => (
                <li key={v.version}>
                  {v.version === agent.version ? (
                    <strong aria-current="true">Version {v.version}</strong>
                  ) : (
                    <Link
                      to={
                        v.version === current.version
                          ? agentPath(current.id)
                          : withQuery(agentPath(current.id), { version: String(v.version) })
                      }
                    >
                      Version {v.version}
                    </Link>
                  )}{' '}
                  <span className="muted">{formatTime(v.created_at)}</span>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
    </div>
  )
}

const OVERVIEW_TRIGGERS = 10

/** The agent's triggers at a glance; the Triggers tab has the rest. */
function OverviewTriggers({ agentId }: { agentId: string }) {
  const [subs, setSubs] = useState<Subscription[] | null>(null)
  const [more, setMore] = useState(false)
  useEffect(() => {
    // A glance: the first few; the Triggers tab pages through the rest.
    agentsApi.subscriptions(agentId, { limit: OVERVIEW_TRIGGERS }).then(
      (page) => {
        setSubs(page.subscriptions)
        setMore(page.next_cursor !== null)
      },
      () => setSubs([]),
    )
  }, [agentId])
  return (
    <section className="panel" aria-labelledby="overview-triggers-heading">
      <h2 id="overview-triggers-heading">Triggers</h2>
      {subs === null && <p className="muted">Loading…</p>}
      {subs?.length === 0 && <p className="muted">None: it runs when started by hand or over the API.</p>}
      {subs && subs.length > 0 && (
        <ul className="plain-list">
          {subs.map((s) => (
            <li key={s.id}>
              {s.trigger_title} <span className="muted">on {s.integration_name}</span>{' '}
              <RunStatusBadge status={s.status} />
            </li>
          ))}
        </ul>
      )}
      {more && <p className="muted">And more.</p>}
      <Link to={agentPath(agentId, 'triggers')}>
        {more ? 'See them all' : subs && subs.length > 0 ? 'Manage triggers' : 'Add a trigger'}
      </Link>
    </section>
  )
}

/** The signing secret is shown once, when made: a lost one is replaced, never shown again. */
function NewSigningSecret({ agentId }: { agentId: string }) {
  const [secret, setSecret] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)
  const rotate = async () => {
    setError(null)
    try {
      setSecret(await agentsApi.rotateSecret(agentId))
    } catch (e) {
      setError(e)
    }
  }
  return (
    <div className="signing-secret">
      {secret ? (
        <SecretOnce secret={secret} />
      ) : (
        <ConfirmButton
          question="Make a new signing secret? Your service must switch to it: deliveries are signed with the new one at once."
          confirmLabel="Make a new secret"
          onConfirm={rotate}
        >
          New signing secret
        </ConfirmButton>
      )}
      {error !== null && <ProblemMessage error={error} />}
    </div>
  )
}

/** A model agent in words: what the model is told, which model, the tools it may choose from, its budget. */
function ModelDefinition({ agent }: { agent: Agent }) {
  const budget = Object.entries(agent.budget ?? {})
  // The definition stores ids (renaming never breaks it); a person reads names.
  const [names, setNames] = useState<Record<string, string>>({})
  useEffect(() => {
    let live = true
    // Each integration its tools name, by id: never the whole list (issue 22, §7).
    const ids = [...new Set((agent.tools ?? []).flatMap((t) => (t.integration ? [t.integration] : [])))]
    Promise.all([
      modelConnectionsApi.list(),
      Promise.all(ids.map((id) => api.getIntegration(id).catch(() => null))),
    ]).then(
      ([connections, integrations]) =>
        live &&
        setNames(
          Object.fromEntries([
            ...connections.map((c) => [c.id, c.name]),
            ...integrations.flatMap((i) => (i ? [[i.id, i.account_name]] : [])),
          ]),
        ),
      () => {},
    )
    return () => {
      live = false
    }
  }, [agent.id, agent.version])
  const named = (id: string | undefined) => (id ? (names[id] ?? id) : '')
  return (
    <>
      <h3>Instructions</h3>
      <pre className="wrap-anywhere model-instructions">{agent.instructions}</pre>
      <h3>Model</h3>
      <p>
        <code>{agent.model?.name}</code>{' '}
        <span className="muted">through {named(agent.model?.connection)}</span>
      </p>
      <h3>Tools the model may use</h3>
      {(agent.tools ?? []).length === 0 && <p className="muted">None.</p>}
      <ul className="plain-list">
        {(agent.tools ?? []).map((t) => (
          <li key={t.name ?? t.tool}>
            <code>{t.tool}</code>{' '}
            <span className="muted">
              on {t.integration ? named(t.integration) : 'any of your accounts on the platform'}
              {t.require_approval ? ', each call waits for a person' : ''}
            </span>
          </li>
        ))}
      </ul>
      <p className="help">Destructive steps always wait for a person&apos;s approval; reads never do.</p>
      {budget.length > 0 && (
        <>
          <h3>Budget per run</h3>
          <ul className="plain-list">
            {budget.map(([name, value]) => (
              <li key={name}>
                <span className="muted">{humanize(name)}:</span> {String(value)}
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  )
}
