// Node's fs, with the one export the conformance CLI imports that Node 20 lacks (see register.mjs).
import fs from 'node:fs'

export * from 'node:fs'
export default fs
export const globSync =
  fs.globSync ??
  (() => {
    throw new Error('fs.globSync needs Node 22; the MCP conformance server scenarios do not use it')
  })
