import { z } from 'zod'
import type { ApiClient } from '../../../core/http/api-client.ts'
import { MAX_TEXT_LENGTH } from '../schemas.ts'

/** A comment: not blank, within Trello's 16384 characters. */
export const CommentText = z.string().trim().min(1, 'must not be empty').max(MAX_TEXT_LENGTH)

/** Shared by Add Comment to Card and the legacy Add Comment: one road, two input shapes. */
export function postComment(api: ApiClient, idCard: string, text: string) {
  return api.post(`/1/cards/${idCard}/actions/comments`, { text })
}
