import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { hostileTemplatesBench } from './hostile-templates.ts'
import { freePort, startChild } from './processes.ts'

// The hostile-templates scenario alone (`node --import tsx bench/hostile-only.ts`), on the embedded store.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-hostile-'))
const sandbox = await startChild(['sandbox', '--port', String(await freePort())], {}, /listening on (\S+)/)
const service = await startChild(
  ['start'],
  {
    PORT: String(await freePort()),
    SWITCHYARD_DATA_DIR: dataDir,
    SWITCHYARD_SANDBOX_URL: sandbox.match[1],
    LOG_LEVEL: 'warn',
  },
  /Switchyard is running at (\S+)/,
)
try {
  const apiKey = fs.readFileSync(path.join(dataDir, 'admin-api-key'), 'utf8').trim()
  console.log(await hostileTemplatesBench({ url: service.match[1], apiKey, pid: service.process.pid }))
} finally {
  await service.stop()
  await sandbox.stop()
  fs.rmSync(dataDir, { recursive: true, force: true })
}
