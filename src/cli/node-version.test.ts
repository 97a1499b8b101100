import { describe, expect, it } from 'vitest'
import { nodeVersionCheck } from './node-version.ts'

describe('doctor reports the Node.js version against what the project supports', () => {
  it.each([
    ['24.21.0', true, /v24\.21\.0 \(supported: >=22\.12\)/],
    ['22.12.0', true, /supported/],
    ['20.20.2', true, /past its end of life; supported: >=22\.12/],
    ['20.18.0', false, /too old: install Node.js >=22\.12/],
    ['18.20.4', false, /too old/],
  ])('%s', (version, ok, detail) => {
    const check = nodeVersionCheck(version, '>=22.12')
    expect(check.ok).toBe(ok)
    expect(check.detail).toMatch(detail)
  })

  it("reads the supported range from package.json's engines", () => {
    expect(nodeVersionCheck('99.0.0').detail).toMatch(/supported: >=/)
  })
})
