// The arrows of the layout (docs/architecture.md, "Layout"), checked by `npm run lint` (issue 25 §5):
// no import circles, core/ names nothing above it, and the product never loads an emulator.
const ENTRY_POINTS_TO_SANDBOXES = ['^src/services\\.ts$', '^src/cli/commands\\.ts$']

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'An import circle, type-only ones included: split the shared part (often pure types) into its own module.',
      from: { pathNot: '^src/sandboxes/' },
      to: { circular: true },
    },
    {
      name: 'no-circular-in-sandboxes',
      severity: 'error',
      comment:
        "An import circle among a sandbox's modules that runs at load time. (Type-only ones around each sandbox's own state type remain, known: docs/architecture.md.)",
      from: { path: '^src/sandboxes/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'core-stays-below',
      severity: 'error',
      comment:
        'core/ never names a platform and never reaches up to the server, web app, CLI, sandboxes or composition root. (Its tests may load the real declarations.)',
      from: { path: '^src/core/', pathNot: '\\.test\\.tsx?$' },
      to: { path: ['^src/(platforms|server|web|cli|sandboxes)/', '^src/(services|cli)\\.ts$'] },
    },
    {
      name: 'platforms-declare-only',
      severity: 'error',
      comment:
        'Platform declarations use core, never the server, web app, CLI, sandboxes or composition root.',
      from: { path: '^src/platforms/', pathNot: '\\.test\\.tsx?$' },
      to: { path: ['^src/(server|web|cli|sandboxes)/', '^src/(services|cli)\\.ts$'] },
    },
    {
      name: 'composition-root-below-server',
      severity: 'error',
      comment: 'src/services.ts wires core and platforms; the server, web app and CLI sit on top of it.',
      from: { path: '^src/services\\.ts$' },
      to: { path: '^src/(server|web|cli)/' },
    },
    {
      name: 'serving-knows-neither',
      severity: 'error',
      comment:
        'src/serving/ is what the service and the sandboxes share about serving HTTP: it imports nothing of either, so both may import it.',
      from: { path: '^src/serving/' },
      to: { path: ['^src/(core|platforms|server|web|cli|sandboxes)/', '^src/(services|cli)\\.ts$'] },
    },
    {
      name: 'product-never-loads-sandboxes',
      severity: 'error',
      comment:
        'The product never imports a sandbox; only the composition root and the CLI sandbox command load them, when asked to.',
      from: { path: '^src/', pathNot: ['^src/sandboxes/', '\\.test\\.tsx?$', ...ENTRY_POINTS_TO_SANDBOXES] },
      to: { path: '^src/sandboxes/' },
    },
    {
      name: 'sandboxes-loaded-lazily',
      severity: 'error',
      comment: 'The entry points load the sandboxes with import() only when sandboxes are asked for.',
      from: { path: ENTRY_POINTS_TO_SANDBOXES },
      to: { path: '^src/sandboxes/', dependencyTypesNot: ['dynamic-import'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: they tie modules together for the reader and for tsc.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: ['^src/web/api-types\\.generated\\.ts$'] },
  },
}
