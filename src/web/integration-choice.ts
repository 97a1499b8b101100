import type { Integration } from './api.ts'

/**
 * A step's integration picker: the platform's integrations, usable ones first, and the one chosen
 * at first. A disconnected or expired integration is never the first choice while an active one
 * exists: running on it could only fail.
 */
export function integrationChoices(
  all: readonly Integration[],
  platform: string,
): { choices: Integration[]; first: string } {
  const choices = all
    .filter((i) => i.platform === platform)
    .sort((a, b) => Number(b.status === 'active') - Number(a.status === 'active'))
  // Active ones sort first, so the first listed is the first choice.
  return { choices, first: choices[0]?.id ?? '' }
}
