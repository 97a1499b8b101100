import { useRef } from 'react'
import { InsertChoices } from './InsertChoices.tsx'
import type { Tool } from '../api.ts'
import {
  approvalRuleOf,
  BUDGET_BOXES,
  defaultToolName,
  emptyModelTool,
  OUTPUT_SCHEMA_EXAMPLE,
  type ModelForm,
  type ModelToolRow,
} from '../model-agent-form.ts'
import { SANDBOX_MODEL_NAMES, type ModelConnection } from '../model-connections-api.ts'
import { insertAt, insertChoices } from '../template-text.ts'
import { EffectBadge } from './Badges.tsx'
import { DocsLink } from './DocsLink.tsx'
import { FieldErrorText } from './FieldErrorText.tsx'
import { FieldShell, fieldAria } from './FieldShell.tsx'
import { Link } from './Link.tsx'
import { SearchSelect, type SearchOption } from './SearchSelect.tsx'
import { IntegrationPicker } from './IntegrationPicker.tsx'

interface Props {
  form: ModelForm
  onChange: (form: ModelForm) => void
  connections: readonly ModelConnection[]
  tools: readonly Tool[]
  toolOptions: readonly SearchOption[]
  platformTitles: Record<string, string>
  /** The agent's input variables, which the instructions may name. */
  variables: readonly string[]
  /** Messages by place (agent-errors.ts): `instructions`, `model.name`, `tools.0.strict`, `budget.tokens`, … */
  errors: Record<string, string[]>
}

/**
 * A model agent's own fields (docs/model-agents.md, "The agent"): instructions, the model, the tools
 * it may choose from with the approval rule each one's annotations fix, an optional output schema
 * and the budget. The name, description and input variables are the agent form's, shared by every kind.
 */
export function ModelAgentEditor({
  form,
  onChange,
  connections,
  tools,
  toolOptions,
  platformTitles,
  variables,
  errors,
}: Props) {
  const set = (patch: Partial<ModelForm>) => onChange({ ...form, ...patch })
  const connection = connections.find((c) => c.id === form.connection)
  const setTool = (i: number, row: ModelToolRow) =>
    set({ tools: form.tools.map((r, j) => (j === i ? row : r)) })

  // Where an inserted {{ inputs.x }} goes: the instructions' selection when it was last seen.
  const instructionsBox = useRef<HTMLTextAreaElement>(null)
  const insert = (template: string) => {
    const box = instructionsBox.current
    const { text, caret } = insertAt(form.instructions, box?.selectionStart, box?.selectionEnd, template)
    set({ instructions: text })
    requestAnimationFrame(() => {
      box?.focus()
      box?.setSelectionRange(caret, caret)
    })
  }
  const insertable = insertChoices(variables, [])

  return (
    <div className="model-editor">
      <FieldShell
        id="agent-instructions"
        label="Instructions"
        help={
          <>
            What the model is told, a template like a step&apos;s input: {'{{ inputs.<name> }}'} and{' '}
            {'{{ event.<field> }}'} are filled in when a run starts. Name the tools it should use.
          </>
        }
        messages={errors.instructions}
      >
        <InsertChoices choices={insertable} label="Insert into the instructions" onInsert={insert} />
        <textarea
          ref={instructionsBox}
          {...fieldAria('agent-instructions', errors.instructions, true)}
          name="instructions"
          rows={6}
          value={form.instructions}
          placeholder="Read the ticket with get_ticket, then search_tickets for similar ones, then propose an update with update_ticket."
          onChange={(e) => set({ instructions: e.target.value })}
        />
      </FieldShell>

      <fieldset className="model-choice">
        <legend>Model</legend>
        <FieldErrorText id="agent-model-error" messages={errors.model} />
        {connections.length === 0 ? (
          <p className="help" data-testid="no-model-connections">
            You have no model connection yet. <AddConnectionLink />; it shows up here once added. See{' '}
            <DocsLink page="model-agents.md">model agents</DocsLink>.
          </p>
        ) : (
          <div className="step-grid">
            <FieldShell id="agent-model-connection" label="Connection" messages={errors['model.connection']}>
              <select
                {...fieldAria('agent-model-connection', errors['model.connection'])}
                name="model-connection"
                value={form.connection}
                onChange={(e) => {
                  const next = connections.find((c) => c.id === e.target.value)
                  // The sandbox answers to its own names only: start from its main one.
                  const keepName =
                    form.modelName.trim() &&
                    (!next?.sandbox || (SANDBOX_MODEL_NAMES as readonly string[]).includes(form.modelName))
                  set({
                    connection: e.target.value,
                    modelName: keepName ? form.modelName : next?.sandbox ? SANDBOX_MODEL_NAMES[0] : '',
                  })
                }}
              >
                {!connection && (
                  <option value={form.connection}>
                    {form.connection ? 'A connection you can no longer use' : 'Choose…'}
                  </option>
                )}
                {connections.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                    {c.owner === 'shared' ? ' (shared)' : ''}
                  </option>
                ))}
              </select>
            </FieldShell>
            <FieldShell
              id="agent-model-name"
              label="Model name"
              help={connection?.sandbox ? undefined : 'As the provider names it, e.g. gpt-4.1.'}
              messages={errors['model.name']}
            >
              <input
                type="text"
                {...fieldAria('agent-model-name', errors['model.name'], !connection?.sandbox)}
                name="model-name"
                className="mono"
                autoComplete="off"
                spellCheck={false}
                list={connection?.sandbox ? 'sandbox-model-names' : undefined}
                value={form.modelName}
                onChange={(e) => set({ modelName: e.target.value })}
              />
              {connection?.sandbox && (
                <datalist id="sandbox-model-names">
                  {SANDBOX_MODEL_NAMES.map((n) => (
                    <option key={n} value={n} />
                  ))}
                </datalist>
              )}
            </FieldShell>
          </div>
        )}
        {connections.length > 0 && (
          <p className="help model-connection-add">
            Not in the list? <AddConnectionLink />; it shows up here once added.
          </p>
        )}
        {connection?.sandbox && (
          <p className="sandbox-model-note" data-testid="sandbox-model-note">
            <span className="tag">sandbox model</span> It follows scripted rules and understands nothing: it
            calls the tools its instructions name, in the order named, with arguments from the instructions
            and the inputs, then answers with what they returned. Free, and no key needed.
          </p>
        )}
      </fieldset>

      <h2>Tools the model may use</h2>
      <p className="help">
        Tool steps from the catalogue. Each runs on one of your integrations, or on any of yours on its
        platform, the model choosing by account name. Whether a call waits for a person comes from the step,
        never from the model. Every agent also has <code>escalate_to_person</code>.
      </p>
      <FieldErrorText id="agent-tools-error" messages={errors.tools} />
      {form.tools.length === 0 && <p className="empty">No tools yet: the model can only answer.</p>}
      <ol className="step-list">
        {form.tools.map((row, i) => (
          <ModelToolCard
            key={row.id}
            index={i}
            row={row}
            tools={tools}
            toolOptions={toolOptions}
            platformTitles={platformTitles}
            errors={errors}
            onChange={(next) => setTool(i, next)}
            onRemove={() => set({ tools: form.tools.filter((_, j) => j !== i) })}
          />
        ))}
      </ol>
      <button type="button" onClick={() => set({ tools: [...form.tools, emptyModelTool()] })}>
        Add tool
      </button>

      <fieldset className="model-output">
        <legend>Final answer</legend>
        <div className="segmented" role="group" aria-label="The final answer is">
          <button
            type="button"
            aria-pressed={form.outputMode === 'text'}
            onClick={() => set({ outputMode: 'text' })}
          >
            Free text
          </button>
          <button
            type="button"
            aria-pressed={form.outputMode === 'schema'}
            onClick={() =>
              set({ outputMode: 'schema', outputSchema: form.outputSchema || OUTPUT_SCHEMA_EXAMPLE })
            }
          >
            JSON Schema
          </button>
        </div>
        {form.outputMode === 'text' ? (
          <p className="help">The run&apos;s result is the model&apos;s last words.</p>
        ) : (
          <FieldShell
            id="agent-output-schema"
            label="JSON Schema the answer must satisfy"
            help="An answer that does not fit is said back to the model, within its tool errors."
            messages={errors.output}
          >
            <textarea
              {...fieldAria('agent-output-schema', errors.output, true)}
              name="output-schema"
              className="mono"
              rows={8}
              spellCheck={false}
              value={form.outputSchema}
              onChange={(e) => set({ outputSchema: e.target.value })}
            />
          </FieldShell>
        )}
      </fieldset>

      <fieldset className="model-budget">
        <legend>Budget per run</legend>
        <p className="help">
          A run stops as <code>budget_exhausted</code> when one runs out, and can be extended from there. An
          empty box takes the default shown; your plan caps each (
          <DocsLink page="model-agents.md" anchor="budget">
            budget
          </DocsLink>
          ).
        </p>
        <FieldErrorText id="agent-budget-error" messages={errors.budget} />
        <div className="budget-grid">
          {BUDGET_BOXES.map((box) => {
            const id = `agent-budget-${box.field}`
            const messages = errors[`budget.${box.field}`]
            return (
              <FieldShell key={box.field} id={id} label={box.label} messages={messages}>
                <input
                  type="text"
                  inputMode="decimal"
                  {...fieldAria(id, messages)}
                  name={`budget-${box.field}`}
                  autoComplete="off"
                  placeholder={box.default.toLocaleString('en-US')}
                  value={form.budget[box.field] ?? ''}
                  onChange={(e) => set({ budget: { ...form.budget, [box.field]: e.target.value } })}
                />
              </FieldShell>
            )
          })}
        </div>
      </fieldset>
    </div>
  )
}

const RULE_WORDS = {
  never: 'Runs without approval: it only reads.',
  always: "Every call waits for a person's approval: it cannot be taken back.",
} as const

/** One tool of the agent: the step, where it acts, its approval rule, and its name for the model. */
function ModelToolCard({
  index,
  row,
  tools,
  toolOptions,
  platformTitles,
  errors,
  onChange,
  onRemove,
}: {
  index: number
  row: ModelToolRow
  tools: readonly Tool[]
  toolOptions: readonly SearchOption[]
  platformTitles: Record<string, string>
  errors: Record<string, string[]>
  onChange: (row: ModelToolRow) => void
  onRemove: () => void
}) {
  const base = `agent-tools-${index}`
  const e = (part: string) => errors[`tools.${index}.${part}`]
  const tool = tools.find((t) => t.id === row.tool)
  const platformTitle = tool ? (platformTitles[tool.platform] ?? tool.platform) : ''
  const rule = approvalRuleOf(tool)
  // Open by itself where it holds something: a name, strict mode, or the server's words about them.
  const moreOpen = !!(row.name || row.strict || e('name') || e('strict'))
  const set = (patch: Partial<ModelToolRow>) => onChange({ ...row, ...patch })
  const chooseTool = (id: string) => {
    const next = tools.find((t) => t.id === id)
    const keep = next?.platform === tool?.platform
    onChange({
      ...row,
      tool: id,
      // Another platform's integration cannot serve it: the picker takes the new platform's first.
      integration: keep ? row.integration : '',
      pickFirst: !keep,
      requireApproval: approvalRuleOf(next) === 'chosen' ? row.requireApproval : false,
    })
  }

  return (
    <li className="step-card model-tool" aria-label={`Tool ${index + 1}${tool ? `: ${tool.title}` : ''}`}>
      <div className="step-head">
        <h3>
          Tool {index + 1}
          {tool && <span className="muted step-head-tool"> · {tool.title}</span>}
        </h3>
        <div className="step-tools">
          <button
            type="button"
            className="button-danger"
            onClick={onRemove}
            aria-label={`Remove tool ${index + 1}`}
          >
            Remove
          </button>
        </div>
      </div>
      <FieldErrorText id={`${base}-error`} messages={errors[`tools.${index}`]} />
      <div className="step-grid">
        <FieldShell id={`${base}-tool`} label="Tool step" messages={e('tool')}>
          <SearchSelect
            id={`${base}-tool`}
            name="tool"
            options={toolOptions}
            value={row.tool}
            placeholder="Search tool steps, e.g. get ticket"
            invalid={!!e('tool')}
            describedBy={e('tool') ? `${base}-tool-error` : undefined}
            onChange={chooseTool}
          />
        </FieldShell>
        {(tool || row.tool) && (
          <FieldShell id={`${base}-integration`} label="Acts on" messages={e('integration')}>
            {tool ? (
              <IntegrationPicker
                aria={fieldAria(`${base}-integration`, e('integration'))}
                name="integration"
                platform={tool.platform}
                value={row.integration}
                onChange={(integration) => set({ integration, pickFirst: false })}
                chooseFirst={row.pickFirst}
                anyLabel={`Any of my ${platformTitle} accounts`}
                empty={
                  <p className="help">
                    No {platformTitle} integration yet. <Link to="/integrations">Add one</Link> for the tool
                    to act on.
                  </p>
                }
              />
            ) : null}
            {row.integration === '' && tool && (
              <p className="help">The model chooses one by its account name on each call.</p>
            )}
          </FieldShell>
        )}
      </div>
      {tool && (
        <div className="approval-rule" data-testid="approval-rule">
          <EffectBadge effect={tool.destructive && tool.effect !== 'delete' ? 'destructive' : tool.effect} />
          {rule === 'chosen' ? (
            <span className="field-checkbox">
              <input
                type="checkbox"
                id={`${base}-require_approval`}
                name="require-approval"
                checked={row.requireApproval}
                aria-invalid={e('require_approval') ? true : undefined}
                aria-describedby={e('require_approval') ? `${base}-require_approval-error` : undefined}
                onChange={(ev) => set({ requireApproval: ev.target.checked })}
              />
              <label htmlFor={`${base}-require_approval`}>Each call waits for a person&apos;s approval</label>
            </span>
          ) : (
            <span>{RULE_WORDS[rule]}</span>
          )}
        </div>
      )}
      <FieldErrorText id={`${base}-require_approval-error`} messages={e('require_approval')} />
      {(tool || row.tool) && (
        <details className="tool-more" open={moreOpen}>
          <summary>Name and strict mode</summary>
          <FieldShell
            id={`${base}-name`}
            label="The model calls it"
            optional
            help="Letters, digits, _ or -. Name it so in the instructions."
            messages={e('name')}
          >
            <input
              type="text"
              {...fieldAria(`${base}-name`, e('name'), true)}
              name="tool-name"
              className="mono"
              autoComplete="off"
              spellCheck={false}
              placeholder={defaultToolName(row.tool)}
              value={row.name}
              onChange={(ev) => set({ name: ev.target.value })}
            />
          </FieldShell>
          <div className="field field-checkbox">
            <input
              type="checkbox"
              id={`${base}-strict`}
              name="strict"
              checked={row.strict}
              aria-invalid={e('strict') ? true : undefined}
              aria-describedby={e('strict') ? `${base}-strict-error` : `${base}-strict-help`}
              onChange={(ev) => set({ strict: ev.target.checked })}
            />
            <label htmlFor={`${base}-strict`}>Send in OpenAI&apos;s strict mode</label>
            <p className="help" id={`${base}-strict-help`}>
              The model&apos;s arguments then always fit the schema. Saving checks the step&apos;s schema
              against strict mode&apos;s rules.
            </p>
            <FieldErrorText id={`${base}-strict-error`} messages={e('strict')} />
          </div>
        </details>
      )}
    </li>
  )
}

/**
 * Opens the model connections page in a new tab, so the agent being edited here is not lost; the
 * editor reads the list again when that tab adds one (AgentEditorPage).
 */
function AddConnectionLink() {
  return (
    <a href="/model-connections?add" target="_blank" rel="noopener noreferrer">
      Add a model connection<span className="visually-hidden"> (opens in a new tab)</span>
    </a>
  )
}
