import { describe, expect, it } from 'vitest'
import { safeNextPath } from './next-path.ts'

// No open redirect after sign-in: only a path of this site is followed (docs/security.md, "People").
describe('safeNextPath', () => {
  it.each([
    ['/agents?tab=1', '/agents?tab=1'],
    ['/runs/run_1#timeline', '/runs/run_1#timeline'],
    ['/a/../b', '/b'],
    [undefined, '/integrations'],
    [42, '/integrations'],
    ['', '/integrations'],
    ['https://evil.example/', '/integrations'],
    ['//evil.example/', '/integrations'],
    ['/\\evil.example', '/integrations'],
    ['\\\\evil.example', '/integrations'],
    ['javascript:alert(1)', '/integrations'],
    ['/agents\r\nLocation: https://evil.example', '/integrations'],
    ['/\tevil', '/integrations'],
    ['/login?next=/tools', '/integrations'],
    ['/welcome#token=x', '/integrations'],
    [`/${'a'.repeat(3000)}`, '/integrations'],
  ])('%j → %j', (next, expected) => expect(safeNextPath(next)).toBe(expected))
})
