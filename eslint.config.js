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
    // On Node 24 an ESM import of node:http builds its namespace, whose WebSocket, MessageEvent and CloseEvent getters
    // load Node's bundled undici: 1.4 MB more heap in a process running Fastify (lib/http-error.ts).
    files: ['index.ts', 'lib/**/*.ts', 'adapters/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: ['node:http', 'http'].map((name) => ({
        name, allowTypeImports: true,
        message: "An ESM import of node:http loads Node's bundled undici on Node 24; read it with process.getBuiltinModule('node:http').",
      })) }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'demo/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
)
