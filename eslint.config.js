// Lint rules: typescript-eslint's recommended set, plus the house boundary that lib/ never imports fastify.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'bench/results/', '.fw/', 'coverage/', '.tap/', '.bench-build/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': ['error', { selector: 'TSEnumDeclaration', message: 'Use a string-literal union or a const object.' }],
    },
  },
  {
    files: ['lib/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['fastify', '@fastify/*'], message: 'lib/ is Fastify-independent; put Fastify code in adapters/.' },
        { group: ['**/adapters/*', '**/adapters'], message: 'lib/ never imports adapters/: the layers point one way (the root index.ts joins them).' },
      ] }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'demo/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
)
