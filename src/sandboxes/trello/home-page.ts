import { handleApi } from './api.ts'
import type { Actor } from './context.ts'
import { escapeHtml, htmlResponse, type IncomingRequest, type SandboxResponse } from './http.ts'
import { SCOPES, type Card, type List, type Member } from './model.ts'
import type { TrelloSandbox } from './sandbox.ts'
import { SEED } from './seed.ts'
import { homeLayout, options, refusalInWords, required, type HomeForms } from '../kit/home-page.ts'

/**
 * `GET {prefix}` (docs/sandbox.md "Home pages"): the sandbox's members, boards, lists and cards,
 * with forms that change a card **as a member** (Grace by default), so a newcomer can make a
 * Switchyard trigger fire without curl: the product's loop guard skips changes made by the
 * integration's own account. Each form posts back to the page with a `step`, and each change is
 * one `/1/...` request through the API pipeline as `POST /_control/act` makes it (the web UI's
 * way: no app, all scopes), so actions, webhooks and polls see it exactly as an API change.
 */

type Step = 'create' | 'move' | 'comment' | 'archive'
const STEPS: readonly Step[] = ['create', 'move', 'comment', 'archive']

/** The member the forms choose first: the seeded "other person" (Ada is the usual integration account). */
const DEFAULT_MEMBER = SEED.members.grace.username

export function trelloHomePage(
  sb: TrelloSandbox,
  forms: HomeForms,
  req: IncomingRequest,
  root: string,
): SandboxResponse {
  const store = sb.store
  const members = [...store.members.values()]
  const boards = [...store.boards.values()].filter((b) => !b.closed)
  const lists = boards.flatMap((b) =>
    store
      .listsOf(b.id)
      .filter((l) => !l.closed)
      .map((l) => ({ board: b, list: l })),
  )
  const openCards = boards.flatMap((b) => store.cardsOfBoard(b.id)).filter((c) => !c.closed)

  const memberRows = members
    .map(
      (m) =>
        `<tr><td>${escapeHtml(m.fullName)}</td><td><code>${escapeHtml(m.username)}</code></td><td>${escapeHtml(m.email)}</td></tr>`,
    )
    .join('\n')
  const boardSections = boards
    .map((board) => {
      const columns = store
        .listsOf(board.id)
        .filter((l) => !l.closed)
        .map((list) => {
          const cards = store
            .cardsOfList(list.id)
            .filter((c) => !c.closed)
            .map(
              (c) =>
                `<li data-card="${escapeHtml(c.id)}"><a href="${escapeHtml(`${root}/c/${c.shortLink}`)}">${escapeHtml(c.name)}</a></li>`,
            )
            .join('\n')
          return `<h4>${escapeHtml(list.name)}</h4>\n<ul class="records">${cards || '<li><em>No cards</em></li>'}</ul>`
        })
        .join('\n')
      const archived = store.cardsOfBoard(board.id).filter((c) => c.closed)
      const archivedLine = archived.length
        ? `<p>Archived: ${archived.map((c) => escapeHtml(c.name)).join(' · ')}</p>`
        : ''
      return `<section class="board"><h3>${escapeHtml(board.name)}</h3>\n${columns}\n${archivedLine}</section>`
    })
    .join('\n')

  const memberSelect = `<label>Acting as <select name="member">
${options(
  members.map((m) => ({ value: m.username, label: `${m.fullName} (@${m.username})` })),
  members.some((m) => m.username === DEFAULT_MEMBER) ? DEFAULT_MEMBER : members[0]?.username,
)}
</select></label>`
  const listSelect = (label: string) => `<label>${label} <select name="list">
${options(lists.map(({ board, list }) => ({ value: list.id, label: `${board.name} › ${list.name}` })))}
</select></label>`
  const cardSelect = `<label>Card <select name="card">
${options(openCards.map((c) => ({ value: c.id, label: c.name })))}
</select></label>`
  const form = (step: Step, title: string, fields: string, button: string) =>
    `<form method="post" action="${escapeHtml(root)}" class="change" id="form-${step}">
<h3>${title}</h3>
${forms.hidden()}
<input type="hidden" name="step" value="${step}">
${memberSelect}
${fields}
<button type="submit">${button}</button>
</form>`

  return htmlResponse(
    200,
    homeLayout(
      'Trello sandbox',
      `<nav><a href="/">All sandboxes</a></nav>
<h1>Trello sandbox</h1>
${forms.banner(req.query)}<p>A local stand-in for Trello. Change a card here as another person and Switchyard's Trello triggers see it as they would on trello.com.</p>
<h2>Make a change</h2>
<div class="forms">
${form('create', 'Create a card', `${listSelect('List')}\n<label>Name <input type="text" name="name" required></label>\n<label>Description <textarea name="desc" rows="2"></textarea></label>`, 'Create card')}
${form('move', 'Move a card', `${cardSelect}\n${listSelect('To list')}`, 'Move card')}
${form('comment', 'Comment on a card', `${cardSelect}\n<label>Comment <textarea name="text" rows="2" required></textarea></label>`, 'Add comment')}
${form('archive', 'Archive a card', cardSelect, 'Archive card')}
</div>
<h2>Boards</h2>
${boardSections || '<p>No boards.</p>'}
<h2>Members</h2>
<p>Each seeded member's password is <code>${escapeHtml(SEED.password)}</code>.</p>
<div class="table-wrap"><table id="members"><thead><tr><th>Name</th><th>Username</th><th>Email</th></tr></thead>
<tbody>${memberRows}</tbody></table></div>`,
    ),
  )
}

/** One `/1/...` request as `member`, the way `POST /_control/act` makes it (control/act.ts). */
async function asMember(
  sb: TrelloSandbox,
  req: IncomingRequest,
  prefix: string,
  member: Member,
  method: 'POST' | 'PUT',
  path: string,
  params: Record<string, unknown>,
): Promise<SandboxResponse> {
  const actor: Actor = { member, app: null, token: null, scopes: new Set(SCOPES) }
  const apiReq: IncomingRequest = {
    method,
    path: `${prefix}${path}`,
    query: new URLSearchParams(),
    headers: { 'content-type': 'application/json' },
    rawBody: JSON.stringify(params),
    origin: req.origin,
    remoteAddress: req.remoteAddress,
  }
  return handleApi(sb, apiReq, path, actor)
}

/** `POST {prefix}`: one of the page's forms; 303 back with what happened, or a page saying why not. */
export async function postTrelloHome(
  sb: TrelloSandbox,
  forms: HomeForms,
  req: IncomingRequest,
  prefix: string,
  root: string,
): Promise<SandboxResponse> {
  const read = forms.read(req, { url: root, title: 'Trello sandbox' })
  if (!read.ok) return read.response
  const { fields, refuse } = read
  const step = fields.step as Step
  if (!STEPS.includes(step)) return refuse(400, 'step must be one of create, move, comment, archive.')
  const memberRef = required(fields, 'member')
  if (!memberRef) return refuse(400, 'member is required: choose who makes the change.')
  const member = sb.store.memberByRef(memberRef) ?? sb.store.memberByEmail(memberRef)
  if (!member) return refuse(404, `No member "${memberRef}" in this sandbox.`)
  const who = member.fullName

  const listOf = (name: string): { list: List } | { reason: string; status: number } => {
    const id = required(fields, name)
    if (!id) return { reason: `${name} is required: choose a list.`, status: 400 }
    const list = sb.store.lists.get(id)
    return list ? { list } : { reason: `No list "${id}" in this sandbox.`, status: 404 }
  }
  const cardOf = (): { card: Card } | { reason: string; status: number } => {
    const id = required(fields, 'card')
    if (!id) return { reason: 'card is required: choose a card.', status: 400 }
    const card = sb.store.cardByRef(id)
    return card ? { card } : { reason: `No card "${id}" in this sandbox.`, status: 404 }
  }
  const apiFailed = (answer: SandboxResponse) =>
    refuse(answer.status >= 500 ? 502 : answer.status, refusalInWords('Trello', answer))

  switch (step) {
    case 'create': {
      const name = required(fields, 'name')
      if (!name) return refuse(400, 'name is required: give the card a name.')
      const target = listOf('list')
      if (!('list' in target)) return refuse(target.status, target.reason)
      const answer = await asMember(sb, req, prefix, member, 'POST', '/1/cards', {
        idList: target.list.id,
        name,
        desc: fields.desc ?? '',
      })
      if (answer.status !== 200) return apiFailed(answer)
      return forms.done(root, `${who} created card “${name}” in ${target.list.name}.`)
    }
    case 'move': {
      const found = cardOf()
      if (!('card' in found)) return refuse(found.status, found.reason)
      const target = listOf('list')
      if (!('list' in target)) return refuse(target.status, target.reason)
      const params: Record<string, unknown> = { idList: target.list.id }
      // Trello moves a card to another board's list only when told the board too.
      if (target.list.idBoard !== found.card.idBoard) params.idBoard = target.list.idBoard
      const answer = await asMember(sb, req, prefix, member, 'PUT', `/1/cards/${found.card.id}`, params)
      if (answer.status !== 200) return apiFailed(answer)
      return forms.done(root, `${who} moved card “${found.card.name}” to ${target.list.name}.`)
    }
    case 'comment': {
      const found = cardOf()
      if (!('card' in found)) return refuse(found.status, found.reason)
      const text = required(fields, 'text')
      if (!text) return refuse(400, 'text is required: write the comment.')
      const answer = await asMember(
        sb,
        req,
        prefix,
        member,
        'POST',
        `/1/cards/${found.card.id}/actions/comments`,
        {
          text,
        },
      )
      if (answer.status !== 200) return apiFailed(answer)
      return forms.done(root, `${who} commented on card “${found.card.name}”.`)
    }
    case 'archive': {
      const found = cardOf()
      if (!('card' in found)) return refuse(found.status, found.reason)
      const answer = await asMember(sb, req, prefix, member, 'PUT', `/1/cards/${found.card.id}`, {
        closed: true,
      })
      if (answer.status !== 200) return apiFailed(answer)
      return forms.done(root, `${who} archived card “${found.card.name}”.`)
    }
  }
}
