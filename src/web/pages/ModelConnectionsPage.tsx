import { useEffect, useState } from 'react'
import type { Me } from '../api.ts'
import { Banner } from '../components/Banner.tsx'
import { DocsLink } from '../components/DocsLink.tsx'
import { ModelConnectionForm } from '../components/ModelConnectionForm.tsx'
import { ModelConnectionRow } from '../components/ModelConnectionRow.tsx'
import { ProblemMessage } from '../components/ProblemMessage.tsx'
import {
  announceConnectionsChanged,
  modelConnectionsApi,
  type ModelConnection,
} from '../model-connections-api.ts'
import { navigate } from '../router.ts'

const GROUPS = [
  { owner: 'you', title: 'Yours' },
  { owner: 'shared', title: 'Shared by an admin' },
  { owner: 'sandbox', title: 'Sandbox' },
] as const

/**
 * Model connections (docs/model-agents.md, "Model connections"): the person's own, an admin's shared
 * ones and the sandbox model, like the Integrations page is for platforms. `?add` opens the form
 * (the model agent editor links here that way).
 */
export function ModelConnectionsPage({ me, search }: { me: Me; search: string }) {
  const [connections, setConnections] = useState<ModelConnection[] | null>(null)
  const [loadError, setLoadError] = useState<unknown>(null)
  const adding = new URLSearchParams(search).has('add')
  const [added, setAdded] = useState<ModelConnection | null>(null)

  useEffect(() => {
    document.title = 'Model connections · Switchyard'
    modelConnectionsApi.list().then(setConnections, setLoadError)
  }, [])

  const setAdding = (open: boolean) =>
    navigate(open ? '/model-connections?add' : '/model-connections', { replace: !open })
  const onConnected = (c: ModelConnection) => {
    setConnections((list) => [...(list ?? []), c])
    setAdded(c)
    setAdding(false)
    announceConnectionsChanged()
  }
  const onRemoved = (id: string) => {
    setConnections((list) => list?.filter((c) => c.id !== id) ?? null)
    if (added?.id === id) setAdded(null)
    announceConnectionsChanged()
  }

  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Model connections</h1>
        {!adding && (
          <button type="button" className="button-primary" onClick={() => setAdding(true)}>
            Add a model connection
          </button>
        )}
      </div>
      <p className="muted page-intro">
        The language models your model agents work with.{' '}
        <DocsLink page="model-agents.md">Model agents</DocsLink>
      </p>

      {added && (
        <Banner kind="success" title={`Connected ${added.name}`} onDismiss={() => setAdded(null)}>
          <p>
            {added.has_key ? 'Its key is stored sealed and will not be shown again. ' : ''}Choose it in a
            model agent’s Model section.
          </p>
        </Banner>
      )}
      {adding && (
        <ModelConnectionForm
          canShare={me.role === 'admin'}
          onCancel={() => setAdding(false)}
          onConnected={onConnected}
        />
      )}

      {loadError !== null && <ProblemMessage error={loadError} />}
      {connections === null && loadError === null && <p className="muted">Loading model connections…</p>}
      {connections?.length === 0 && !adding && (
        <p className="empty">No model connections yet. Add one to build model agents.</p>
      )}
      {connections &&
        GROUPS.map(({ owner, title }) => {
          const items = connections.filter((c) => c.owner === owner)
          if (!items.length) return null
          return (
            <section key={owner} className="integration-group" aria-labelledby={`model-connections-${owner}`}>
              <h2 id={`model-connections-${owner}`} className="group-title">
                {title}
              </h2>
              <ul className="item-list" aria-label={`${title}: model connections`}>
                {items.map((c) => (
                  <ModelConnectionRow
                    key={c.id}
                    connection={c}
                    removable={!c.sandbox && (c.shared ? me.role === 'admin' : c.owner === 'you')}
                    onRemoved={onRemoved}
                  />
                ))}
              </ul>
            </section>
          )
        })}
    </>
  )
}
