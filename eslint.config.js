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
    ],
  },
  js.configs.recommended,
  { languageOptions: { globals: globals.node } },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
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
