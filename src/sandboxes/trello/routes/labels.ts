import { recordAction } from '../actions.ts'
import type { ApiContext } from '../context.ts'
import { fail, invalidValue } from '../errors.ts'
import { pickFields } from '../fields.ts'
import { jsonResponse } from '../http.ts'
import { OBJECT_ID } from '../ids.ts'
import { canWrite, labelFor } from '../lookup.ts'
import type { Label } from '../model.ts'
import { boardStub, LABEL_COLORS, labelJson } from '../presenters.ts'
import type { ApiRoute } from '../router.ts'
import { text } from './shared.ts'

/** Labels: `GET /1/labels/{id}`, `POST /1/labels` (`name`, `color`, `idBoard`). */

/** `color` is required: one of the label colors, or null (`null`, `''`) for a colorless label (sources: Trello objects). */
function color(ctx: ApiContext): string | null {
  const raw = ctx.params.raw('color')
  if (raw === null || raw === '' || raw === 'null') return null
  if (typeof raw === 'string' && LABEL_COLORS.includes(raw)) return raw
  return fail(invalidValue('color'))
}

function createLabel(ctx: ApiContext) {
  const { params, store } = ctx
  const idBoard = params.string('idBoard')
  const board = idBoard && OBJECT_ID.test(idBoard) ? store.boards.get(idBoard) : undefined
  if (!board || !canWrite(ctx, board)) return fail(invalidValue('idBoard'))
  const name = text(ctx, 'name', { allowEmpty: true, max: 16384 }) ?? ''
  const label: Label = { id: ctx.sb.newId(), idBoard: board.id, name, color: color(ctx) }
  store.labels.set(label.id, label)
  // createLabel data is not captured: `{label:{id,name,color}, board}` as sources: Trello actions and webhooks suggests [UNV].
  recordAction(ctx.sb, ctx.actor, {
    type: 'createLabel',
    data: { label: { id: label.id, name: label.name, color: label.color }, board: boardStub(board) },
    translationKey: 'action_create_label',
  })
  return jsonResponse(200, labelJson(label, store))
}

export const labelRoutes: ApiRoute[] = [
  {
    method: 'GET',
    path: '/1/labels/{id}',
    scope: 'read',
    handle: (ctx) =>
      jsonResponse(
        200,
        pickFields(labelJson(labelFor(ctx, ctx.path.id as string), ctx.store), ctx.params.string('fields')),
      ),
  },
  { method: 'POST', path: '/1/labels', scope: 'write', handle: createLabel },
]
