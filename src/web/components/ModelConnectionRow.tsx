import { useEffect, useState } from 'react'
import { modelConnectionsApi, protocolTitle, type ModelConnection } from '../model-connections-api.ts'
import { ConfirmButton } from './ConfirmButton.tsx'
import { ProblemMessage } from './ProblemMessage.tsx'

interface Props {
  connection: ModelConnection
  /** Whether this person may remove it: their own, or a shared one when they are an admin. */
  removable: boolean
  onRemoved: (id: string) => void
}

/** One model connection: what it is, whether a key is stored (never the key), and Remove. */
export function ModelConnectionRow({ connection: c, removable, onRemoved }: Props) {
  const [error, setError] = useState<unknown>(null)
  // The confirmation names the model agents that stop working, asked when the row shows.
  const [usage, setUsage] = useState<string | null>(null)
  useEffect(() => {
    if (!removable) return
    let live = true
    modelConnectionsApi
      .usage(c.id)
      .then((u) => live && setUsage(u.summary))
      .catch(() => undefined)
    return () => {
      live = false
    }
  }, [c.id, removable])

  const remove = async () => {
    setError(null)
    try {
      await modelConnectionsApi.remove(c.id)
      onRemoved(c.id)
    } catch (e) {
      setError(e)
    }
  }

  return (
    <li className="item model-connection" data-model-connection-id={c.id}>
      <div className="item-main">
        <span className="item-title">{c.name}</span>
        {c.sandbox && <span className="tag">sandbox model</span>}
        {c.shared && c.owner === 'you' && <span className="tag">shared with everyone</span>}
        <span className="muted">{protocolTitle(c.protocol)}</span>
      </div>
      <dl className="model-connection-facts">
        <dt>Base URL</dt>
        <dd className="mono">{c.base_url}</dd>
        <dt>Key</dt>
        <dd>{c.sandbox ? 'None needed' : c.has_key ? 'Stored sealed, never shown' : 'None'}</dd>
      </dl>
      {c.sandbox && (
        <p className="help">
          The local model sandbox: it follows scripted rules and understands nothing. Free, no key, for trying
          model agents out.
        </p>
      )}
      {removable && (
        <div className="item-actions">
          <ConfirmButton
            question={`Remove ${c.name}?${usage ? ` ${usage}.` : ' No model agent uses it.'}`}
            confirmLabel="Remove"
            onConfirm={remove}
            danger
          >
            Remove
          </ConfirmButton>
        </div>
      )}
      {error !== null && <ProblemMessage error={error} />}
    </li>
  )
}
