import { z } from 'zod'
import type { OptionsSource, ToolContext } from '../../../core/tools/define.ts'
import {
  defineTrigger,
  type AnyTrigger,
  type EventCandidate,
  type TriggerEvent,
} from '../../../core/triggers/define.ts'
import { boardOptions } from '../options.ts'
import { trelloId } from '../schemas.ts'
import { actionOf, candidateOf, isAction, type TrelloAction } from './actions.ts'
import { actionEvent, baseEvent, SAMPLE } from './event.ts'

/** Boards one subscription may watch: each is one shared webhook (one per integration and board). */
export const MAX_BOARDS = 20
/** How many recent events a subscription's test shows; Trello's action lists answer at most 1000. */
export const RECENT_LIMIT = 25
const ACTIONS_PER_BOARD = 100

export const IdBoards = z
  .array(trelloId('board'), { error: 'choose at least one board' })
  .min(1, 'choose at least one board')
  .max(MAX_BOARDS, `watch at most ${MAX_BOARDS} boards per trigger`)
  .describe('The boards to watch')

export const IdLists = z.array(trelloId('list'), { error: 'must be a list of list ids' }).max(100)

/** A config as the helper's callbacks see it: the boards plus the trigger's own fields. */
export type BoardConfig = { board_ids: string[] } & Record<string, any>

export interface BoardTriggerSpec {
  id: string
  title: string
  description: string
  /** The action types that can fire it (for the test's `/actions` read and a fast refusal). */
  types: readonly string[] | ((config: BoardConfig) => readonly string[])
  /** Fields beyond `board_ids`. */
  config?: z.core.$ZodLooseShape
  configOptions?: Record<string, OptionsSource>
  /** The trigger's own event fields, or null when this action does not fire it under `config`. */
  accept(action: TrelloAction, config: BoardConfig): Record<string, unknown> | null
  /** The schemas of those fields. */
  event?: z.core.$ZodLooseShape
  /** A realistic action that fires it with the boards of SAMPLE (the trigger's `sample` is made from it). */
  sample: TrelloAction
}

const typesOf = (spec: BoardTriggerSpec, config: BoardConfig) =>
  typeof spec.types === 'function' ? spec.types(config) : spec.types

/** Newest first; Trello dates have millisecond precision, ids break ties (they sort by creation). */
export const newestFirst = (a: TriggerEvent, b: TriggerEvent): number => {
  const [x, y] = [a.action as { date: string; id: string }, b.action as { date: string; id: string }]
  return y.date.localeCompare(x.date) || y.id.localeCompare(x.id)
}

/** Recent actions of the given types on the boards, through `match`; ask by name so webhook-only types are included. */
export async function recentOnBoards(
  ctx: ToolContext,
  board_ids: string[],
  types: readonly string[],
  match: (c: EventCandidate) => TriggerEvent | null,
): Promise<TriggerEvent[]> {
  const perBoard = await Promise.all(
    board_ids.map(async (board): Promise<unknown[]> =>
      ctx.api.get(`/1/boards/${encodeURIComponent(board)}/actions`, {
        filter: types.join(','),
        limit: ACTIONS_PER_BOARD,
      }),
    ),
  )
  return perBoard
    .flat()
    .filter(isAction)
    .map((action) => match(candidateOf(action)))
    .filter((event): event is TriggerEvent => event !== null)
    .sort(newestFirst)
    .slice(0, RECENT_LIMIT)
}

/** A trigger that fires on actions on the boards it is configured for: one board webhook each. */
export function boardTrigger(spec: BoardTriggerSpec): AnyTrigger {
  const config = z.object({ board_ids: IdBoards, ...spec.config })
  const match = (candidate: EventCandidate, cfg: BoardConfig): TriggerEvent | null => {
    const action = actionOf(candidate)
    if (!action || !typesOf(spec, cfg).includes(action.type)) return null
    const board = action.data.board?.id
    if (!board || !cfg.board_ids.includes(board)) return null
    const extra = spec.accept(action, cfg)
    return extra && { ...baseEvent(action), ...extra }
  }
  const sample = match(
    candidateOf(spec.sample),
    config.parse({ board_ids: [SAMPLE.board.id] }) as BoardConfig,
  )
  if (!sample) throw new Error(`${spec.id}: its sample action does not fire it`)
  return defineTrigger({
    id: spec.id,
    title: spec.title,
    description: spec.description,
    mode: 'instant',
    config,
    configOptions: { board_ids: boardOptions, ...spec.configOptions },
    event: actionEvent(spec.event ?? {}),
    sample,
    models: (cfg) => [...new Set((cfg as BoardConfig).board_ids)],
    match: (candidate, cfg) => match(candidate, cfg as BoardConfig),
    recent: (ctx, cfg) =>
      recentOnBoards(ctx, (cfg as BoardConfig).board_ids, typesOf(spec, cfg as BoardConfig), (c) =>
        match(c, cfg as BoardConfig),
      ),
  })
}
