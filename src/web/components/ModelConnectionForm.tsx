import { useEffect, useRef, useState, type FormEvent } from 'react'
import { ApiError } from '../api.ts'
import { groupFieldErrors } from '../field-errors.ts'
import {
  modelConnectionsApi,
  PROTOCOL_CHOICES,
  type ModelConnection,
  type ModelProtocol,
} from '../model-connections-api.ts'
import { CredentialInput } from './CredentialInput.tsx'
import { FieldShell, fieldAria } from './FieldShell.tsx'
import { FieldErrorText } from './FieldErrorText.tsx'
import { FormProblem } from './ProblemMessage.tsx'

const FORM_ID = 'model-connection'
const FIELDS = ['name', 'protocol', 'base_url', 'api_key', 'shared']

interface Props {
  /** Admins may share a connection with everyone. */
  canShare: boolean
  onCancel: () => void
  onConnected: (connection: ModelConnection) => void
}

/**
 * Connects a model provider (docs/model-agents.md, "Model connections"). The key lives only in this
 * form's state and the body of the one request that stores it sealed: it is cleared once sent and
 * never shown again, as the server never answers it back.
 */
export function ModelConnectionForm({ canShare, onCancel, onConnected }: Props) {
  const [protocol, setProtocol] = useState<ModelProtocol>('openai-chat')
  const [name, setName] = useState('')
  const [baseUrl, setBaseUrl] = useState(PROTOCOL_CHOICES[0].baseUrl)
  const [apiKey, setApiKey] = useState('')
  const [keyShown, setKeyShown] = useState(false)
  const [shared, setShared] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [submitting, setSubmitting] = useState(false)
  const nameInput = useRef<HTMLInputElement>(null)
  useEffect(() => nameInput.current?.focus(), [])

  const choice = PROTOCOL_CHOICES.find((c) => c.protocol === protocol)!
  const chooseProtocol = (next: ModelProtocol) => {
    // A base URL the person typed stays; one the form filled in follows the provider.
    const filled = PROTOCOL_CHOICES.some((c) => c.baseUrl === baseUrl)
    setProtocol(next)
    if (filled || !baseUrl.trim()) setBaseUrl(PROTOCOL_CHOICES.find((c) => c.protocol === next)!.baseUrl)
  }

  const problem = error instanceof ApiError ? error.problem : undefined
  const grouped = groupFieldErrors(problem?.errors, '', FIELDS)
  const errors = grouped.byField
  const hasFieldErrors = Object.keys(errors).length > 0

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    setSubmitting(true)
    setError(null)
    try {
      const connection = await modelConnectionsApi.create({
        name: name.trim(),
        protocol,
        base_url: baseUrl.trim(),
        ...(apiKey ? { api_key: apiKey } : {}),
        ...(canShare && shared ? { shared: true } : {}),
      })
      setApiKey('')
      onConnected(connection)
    } catch (err) {
      setError(err)
      setSubmitting(false)
    }
  }

  return (
    <section className="panel" aria-labelledby="add-model-connection-heading">
      <h2 id="add-model-connection-heading">Add a model connection</h2>
      <form id={FORM_ID} className="model-connection-form" onSubmit={submit} noValidate autoComplete="off">
        <fieldset
          className="method-picker"
          aria-describedby={errors.protocol ? `${FORM_ID}-protocol-error` : undefined}
        >
          <legend>Provider</legend>
          {PROTOCOL_CHOICES.map((c) => {
            const id = `${FORM_ID}-protocol-${c.protocol}`
            return (
              <div className="method-option" key={c.protocol}>
                <input
                  type="radio"
                  id={id}
                  name="protocol"
                  value={c.protocol}
                  checked={protocol === c.protocol}
                  aria-describedby={`${id}-help`}
                  onChange={() => chooseProtocol(c.protocol)}
                />
                <label htmlFor={id} className="method-title">
                  {c.title}
                </label>
                <p className="help" id={`${id}-help`}>
                  {c.help}
                </p>
              </div>
            )
          })}
          <FieldErrorText id={`${FORM_ID}-protocol-error`} messages={errors.protocol} />
        </fieldset>
        <FieldShell
          id={`${FORM_ID}-name`}
          label="Name"
          help="How agents and people pick it, e.g. “OpenAI production” or “Ollama on the build box”."
          messages={errors.name}
        >
          <input
            ref={nameInput}
            type="text"
            {...fieldAria(`${FORM_ID}-name`, errors.name, true)}
            name="name"
            maxLength={100}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        </FieldShell>
        <FieldShell
          id={`${FORM_ID}-base_url`}
          label="Base URL"
          help={
            protocol === 'openai-compatible'
              ? 'Where the server answers, up to and including /v1, e.g. http://localhost:11434/v1 for Ollama.'
              : 'Where the provider answers; change it only for a proxy or a regional endpoint.'
          }
          messages={errors.base_url}
        >
          <input
            type="text"
            {...fieldAria(`${FORM_ID}-base_url`, errors.base_url, true)}
            name="base_url"
            className="mono"
            inputMode="url"
            spellCheck={false}
            autoCapitalize="off"
            placeholder={protocol === 'openai-compatible' ? 'http://localhost:11434/v1' : undefined}
            value={baseUrl}
            onChange={(e) => setBaseUrl(e.target.value)}
          />
        </FieldShell>
        <CredentialInput
          formId={FORM_ID}
          field={{
            name: 'api_key',
            label: choice.needsKey ? 'API key' : 'API key (optional)',
            secret: true,
            help: choice.needsKey
              ? 'Stored sealed and used only to call the provider; it is never shown again, here or anywhere'
              : 'Only if the server asks for one. Stored sealed and never shown again',
          }}
          value={apiKey}
          shown={keyShown}
          messages={errors.api_key}
          onChange={setApiKey}
          onToggle={() => setKeyShown((s) => !s)}
        />
        {canShare && (
          <div className="field field-checkbox">
            <input
              type="checkbox"
              id={`${FORM_ID}-shared`}
              name="shared"
              checked={shared}
              aria-describedby={`${FORM_ID}-shared-help`}
              onChange={(e) => setShared(e.target.checked)}
            />
            <label htmlFor={`${FORM_ID}-shared`}>Share with everyone</label>
            <p className="help" id={`${FORM_ID}-shared-help`}>
              Every user’s model agents may use it, on this key. Only admins can remove it; nobody can see the
              key.
            </p>
            <FieldErrorText id={`${FORM_ID}-shared-error`} messages={errors.shared} />
          </div>
        )}
        <FormProblem error={error} hasFieldErrors={hasFieldErrors} otherFieldErrors={grouped.other} />
        <div className="actions">
          <button type="submit" className="button-primary" disabled={submitting}>
            {submitting ? 'Connecting…' : 'Connect'}
          </button>
          <button type="button" onClick={onCancel} disabled={submitting}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  )
}
