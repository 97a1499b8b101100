import fs from 'node:fs'
import { expect, it } from 'vitest'
import { renderToolsDoc, TOOLS_DOC } from './tools-doc.ts'

it('docs/tools.md matches the tool declarations (run npm run docs:tools)', () => {
  expect(fs.readFileSync(TOOLS_DOC, 'utf8')).toBe(renderToolsDoc())
})
