// Module hook (see register.mjs): the conformance package's imports of `fs` get fs.mjs instead.
import { URL } from 'node:url'

const CONFORMANCE = '/@modelcontextprotocol/conformance/'

export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes(CONFORMANCE)) {
    return { url: new URL('./fs.mjs', import.meta.url).href, shortCircuit: true }
  }
  return next(specifier, context)
}
