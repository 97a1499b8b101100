// How runs read for a person: durations, who started them, times.
import type { Run } from './agents-api.ts'

/** 850 ms, 4.2 s, 3 min 5 s, 2 h 3 min. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return ''
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`
  const s = Math.round(ms / 1000)
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`
  const m = Math.round(s / 60)
  return `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ''}`
}

/** A run's duration: the finished one's, or the time it has been running so far. */
export function runDuration(
  run: Pick<Run, 'duration_ms' | 'started_at' | 'finished_at'>,
  now: number,
): number | null {
  if (run.duration_ms !== null && run.duration_ms !== undefined) return run.duration_ms
  if (run.started_at && !run.finished_at) return Math.max(0, now - Date.parse(run.started_at))
  return null
}

/** Who or what started the run, in words; `triggerTitle` names the trigger where it is known. */
export function startedByText(run: Pick<Run, 'started_by' | 'trigger_id'>, triggerTitle?: string): string {
  switch (run.started_by) {
    case 'trigger':
      return triggerTitle ?? 'A trigger'
    case 'person':
      return 'You, by hand'
    case 'api':
      return 'API'
    case 'rerun':
      return 'Rerun'
    default:
      return String(run.started_by)
  }
}

const sameDay = (a: Date, b: Date) =>
  a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate()

/** A time as people read it in a list: today's as a clock time, others with the date. */
export function formatTime(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return ''
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return ''
  const time = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' })
  return sameDay(d, new Date(now))
    ? time
    : `${d.toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' })} ${time}`
}

/** "3 min ago", "2 h ago", "5 days ago" (for last events). */
export function timeAgo(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return ''
  const ms = now - Date.parse(iso)
  if (!Number.isFinite(ms)) return ''
  if (ms < 45_000) return 'just now'
  const min = Math.round(ms / 60_000)
  if (min < 60) return `${min} min ago`
  const h = Math.round(min / 60)
  if (h < 48) return `${h} h ago`
  return `${Math.round(h / 24)} days ago`
}

export const STATUS_LABELS: Record<string, string> = {
  queued: 'Queued',
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Failed',
  cancelled: 'Cancelled',
  waiting_for_approval: 'Waiting for approval',
  budget_exhausted: 'Budget exhausted',
  escalated: 'Escalated to a person',
  interrupted: 'Interrupted',
  skipped: 'Skipped',
  active: 'Active',
  inactive: 'Inactive',
}

const PREVIEW_LENGTH = 70
/** Long hex strings and similar machine ids say nothing to a person scanning a list. */
const MACHINE_ID = /^[0-9a-f]{16,}$|^[A-Za-z]+_[0-9A-Za-z]{10,}$/i

const ERROR_LENGTH = 160

/** Why a run failed, in one line for a list row: its message, shortened, then its code. */
export function errorSummary(error: { code: string; message: string }): string {
  const text = error.message.replace(/\s+/g, ' ').trim()
  const short = text.length > ERROR_LENGTH ? `${text.slice(0, ERROR_LENGTH - 1)}…` : text
  return `${short} (${error.code})`
}

/** A run's inputs in a few words, for a list row: the text values a person would recognise. */
export function inputsPreview(inputs: Record<string, unknown> | null | undefined): string {
  const words = Object.values(inputs ?? {})
    .filter(
      (v): v is string | number =>
        (typeof v === 'string' && v.trim() !== '' && !MACHINE_ID.test(v.trim())) || typeof v === 'number',
    )
    .map((v) => String(v).replace(/\s+/g, ' ').trim())
  const text = words.join(' · ')
  return text.length > PREVIEW_LENGTH ? `${text.slice(0, PREVIEW_LENGTH - 1)}…` : text
}
