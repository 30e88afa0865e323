#!/usr/bin/env node
// `herald …` (npx herald): the compiled CLI when the package is built (dist/), else the TypeScript sources through
// tsx, a devDependency, so a fresh checkout works without `npm run build`. Rebuild (or delete dist/) after changing
// src/cli in a checkout: dist/ wins when present.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/src/cli/main.js', import.meta.url);
let cli;
if (existsSync(compiled)) {
  cli = await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
const { stdin, stdout, stderr, env } = process;
process.exitCode = await cli.runCli(process.argv.slice(2), { stdin, stdout, stderr, env });
