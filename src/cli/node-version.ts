import fs from 'node:fs'
import semver from 'semver'
import type { DoctorCheck } from './doctor-check.ts'

/** What this project tests on besides the supported lines: CI runs the suite on Node 20 as well as on the LTS (README, "Node.js versions"). */
const TESTED_BELOW_SUPPORTED = '>=20.19.0'

function supportedRange(): string {
  const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    engines?: { node?: string }
  }
  return pkg.engines?.node ?? '*'
}

/** `doctor`'s line on the running Node.js, against package.json's `engines` and what is tested. */
export function nodeVersionCheck(version = process.versions.node, supported = supportedRange()): DoctorCheck {
  const name = 'Node.js'
  if (semver.satisfies(version, supported))
    return { name, ok: true, detail: `v${version} (supported: ${supported})` }
  if (semver.satisfies(version, TESTED_BELOW_SUPPORTED))
    return {
      name,
      ok: true,
      detail: `v${version} runs and is tested, but is past its end of life; supported: ${supported} (install the current LTS)`,
    }
  return { name, ok: false, detail: `v${version} is too old: install Node.js ${supported} (the current LTS)` }
}
