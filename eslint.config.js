import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import prettier from 'eslint-config-prettier'

export default tseslint.config(
  { ignores: ['node_modules', 'data', 'web-dist', 'dist', 'bench/tmp'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Prettier owns layout (npm run format); eslint keeps to correctness.
  prettier,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // The product never depends on its emulators (docs/architecture.md, "Layout"): only the
    // composition root (src/services.ts), the CLI's sandbox command and tests may reach them.
    files: ['src/core/**', 'src/platforms/**', 'src/server/**', 'src/web/**'],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/sandboxes/**', '**/sandboxes'],
              message:
                'The product never imports a sandbox; the composition root wires them (src/services.ts).',
            },
          ],
        },
      ],
    },
  },
)
