// Where the worker's workflow code comes from. Bundling (webpack) costs seconds of CPU at every start-up, so the image
// bundles once at build time (`npm run bundle:workflows` → dist/workflow-bundle.js) and the compiled worker loads that
// file when it is there; development and tests run the TypeScript and bundle it at start-up (or share one bundle
// through HERALD_WORKFLOW_BUNDLE, as the test bed does).
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';

/** The workflows entry point, as TypeScript in development and as compiled JavaScript in dist/. */
export function workflowsPath(): string {
  const ts = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));
  return existsSync(ts) ? ts : fileURLToPath(new URL('../../workflows/index.js', import.meta.url));
}

/** Where the image's bundle is written: dist/workflow-bundle.js, beside dist/src and dist/workflows. */
export const prebuiltBundleFile = (moduleUrl: string = import.meta.url): string =>
  fileURLToPath(new URL('../../workflow-bundle.js', moduleUrl));

/** The image's pre-built bundle, for the compiled code only and when it exists; null otherwise. */
export function prebuiltBundle(moduleUrl: string = import.meta.url): string | null {
  if (!moduleUrl.endsWith('.js')) return null; // TypeScript (development, tests): the workflows as they are now
  const file = prebuiltBundleFile(moduleUrl);
  return existsSync(file) ? file : null;
}

/**
 * The bundle's source map maps lines only and carries no sources: each workflow thread parses it (the SDK's stack
 * traces), and the full map cost each ≈ 23 MB against ≈ 15 (docs/scale-and-size.md, "Worker memory").
 */
export const bundlerOptions = {
  webpackConfigHook: <C extends object>(config: C): C => ({
    ...config,
    devtool: 'inline-nosources-cheap-module-source-map',
  }),
};

/**
 * Where a worker takes its workflow code from: a pre-built bundle (the one given, HERALD_WORKFLOW_BUNDLE, or the
 * image's), else the workflows, bundled at start-up. A tracing worker always bundles its own: a pre-built bundle
 * lacks the tracing workflow interceptors.
 */
export function workflowSource(options: {
  tracing: boolean;
  bundlePath?: string | undefined;
  env?: NodeJS.ProcessEnv;
  moduleUrl?: string;
}): { workflowBundle: { codePath: string } } | { workflowsPath: string; bundlerOptions: typeof bundlerOptions } {
  const { env = process.env } = options;
  const codePath = options.tracing
    ? null
    : (options.bundlePath ?? env.HERALD_WORKFLOW_BUNDLE ?? prebuiltBundle(options.moduleUrl));
  return codePath ? { workflowBundle: { codePath } } : { workflowsPath: workflowsPath(), bundlerOptions };
}

const quietLogger = { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} };

/** Bundles the workflows (workflowsPath) into `file`, as the worker would at start-up. */
export async function writeWorkflowBundle(file: string): Promise<void> {
  const bundle = await bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: quietLogger, ...bundlerOptions });
  await writeFile(file, bundle.code);
}
