// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const nodeBuiltins = [
  'fs',
  'net',
  'http',
  'https',
  'crypto',
  'child_process',
  'dns',
  'os',
  'path',
  'tls',
  'url',
  'worker_threads',
  'process',
  'timers',
];

/** Imports of a folder's files other than its index.ts (src/store/pages, src/store/listing). */
const entryOnly = (folder) => ({
  regex: `(^|/)${folder}/(?!index\\.js$)`,
  message: `Import src/store/${folder} through its index.ts.`,
});

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.tools/**',
      '.data/**',
      'coverage/**',
      'tools/**',
      // Released workflow code kept as it was (test/fixtures/workflow-code/README.md): checked when it was released.
      'test/fixtures/workflow-code/**',
      'test/fixtures/openapi-client/**',
    ],
  },
  js.configs.recommended,
  { languageOptions: { globals: globals.node } },
  ...tseslint.configs.recommended,
  {
    // .tsx: the portal (portal/tsconfig.json, found by the project service like the root tsconfig).
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: 'TSEnumDeclaration', message: 'Use `as const` objects instead of enums.' },
        { selector: 'ExportDefaultDeclaration', message: 'Named exports only.' },
      ],
    },
  },
  // The integrator portal runs in the browser.
  { files: ['portal/**/*.{ts,tsx}'], languageOptions: { globals: globals.browser } },
  // src/store/pages (the page engine) and src/store/listing (the listings on their two layouts) are each entered
  // through their index.ts only; the engine knows nothing of the listings built on it.
  {
    files: ['**/*.ts'],
    ignores: ['src/store/pages/**', 'src/store/listing/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [entryOnly('pages'), entryOnly('listing')] }] },
  },
  {
    files: ['src/store/listing/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [entryOnly('pages')] }] },
  },
  {
    files: ['src/store/pages/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ regex: '(^|/)listing/', message: 'The page engine knows nothing of the listings built on it.' }],
        },
      ],
    },
  },
  {
    files: ['workflows/**/*.ts', 'bench/bare-workflow.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins
            .flatMap((m) => [m, `node:${m}`])
            .map((name) => ({ name, message: 'Workflows must be deterministic: no Node built-ins.' })),
          patterns: [
            { group: ['node:*'], message: 'Workflows must be deterministic: no Node built-ins.' },
            {
              group: ['**/activities/**', 'mongodb', 'undici', 'fastify'],
              message: 'Workflows import only workflow-safe code (types excepted).',
              allowTypeImports: true,
            },
            {
              // src/domain/ is pure and deterministic by design (the vocabulary, the schedule, the attempt rule).
              regex: '(^|/)src/(?!domain/)',
              message: 'Workflows import only workflow-safe code (types excepted).',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
);
