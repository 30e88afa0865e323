// Where the worker takes its workflow code from (src/temporal/workflow-bundle.ts): the image's pre-built bundle when
// the compiled code finds one beside it, the workflows themselves in development and tests.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  bundlerOptions,
  prebuiltBundleFile,
  workflowSource,
  workflowsPath,
  writeWorkflowBundle,
} from '../../src/temporal/workflow-bundle.js';

describe('workflow source', () => {
  // A built tree: dist/src/temporal/workflow-bundle.js, with the image's bundle at dist/workflow-bundle.js.
  const dist = mkdtempSync(join(tmpdir(), 'herald-dist-'));
  mkdirSync(join(dist, 'src/temporal'), { recursive: true });
  const compiled = pathToFileURL(join(dist, 'src/temporal/workflow-bundle.js')).href;
  const typescript = pathToFileURL(join(dist, 'src/temporal/workflow-bundle.ts')).href;
  const bundle = join(dist, 'workflow-bundle.js');
  const bundleNow = { workflowsPath: workflowsPath(), bundlerOptions };
  after(() => rmSync(dist, { recursive: true, force: true }));

  it('writes the image bundle beside dist/src and dist/workflows', () => {
    assert.equal(prebuiltBundleFile(compiled), bundle);
  });

  it('loads the pre-built bundle in the compiled code once it is there, and bundles at start-up before', () => {
    assert.deepEqual(workflowSource({ tracing: false, env: {}, moduleUrl: compiled }), bundleNow);
    writeFileSync(bundle, '// bundled');
    assert.deepEqual(workflowSource({ tracing: false, env: {}, moduleUrl: compiled }), {
      workflowBundle: { codePath: bundle },
    });
  });

  it('bundles the workflows as they are when it runs as TypeScript (development, tests)', () => {
    writeFileSync(bundle, '// bundled');
    assert.deepEqual(workflowSource({ tracing: false, env: {}, moduleUrl: typescript }), bundleNow);
  });

  it('prefers the bundle it is given, then HERALD_WORKFLOW_BUNDLE; a tracing worker bundles its own', () => {
    writeFileSync(bundle, '// bundled');
    const env = { HERALD_WORKFLOW_BUNDLE: '/shared/bundle.js' };
    assert.deepEqual(workflowSource({ tracing: false, env, moduleUrl: compiled }), {
      workflowBundle: { codePath: '/shared/bundle.js' },
    });
    assert.deepEqual(workflowSource({ tracing: false, bundlePath: '/given.js', env, moduleUrl: compiled }), {
      workflowBundle: { codePath: '/given.js' },
    });
    assert.deepEqual(workflowSource({ tracing: true, bundlePath: '/given.js', env, moduleUrl: compiled }), bundleNow);
  });

  it('bundles with a source map of lines, without the sources (each workflow thread parses it)', async () => {
    const file = join(dist, 'written-bundle.js');
    await writeWorkflowBundle(file);
    const code = readFileSync(file, 'utf8');
    const base64 = code.slice(code.lastIndexOf('base64,') + 'base64,'.length).trim();
    const map = JSON.parse(Buffer.from(base64, 'base64').toString()) as {
      sources: string[];
      sourcesContent?: unknown[];
      mappings: string;
    };
    assert.ok(
      map.sources.some((s) => s.endsWith('workflows/delivery-run.ts')),
      'still maps to the TypeScript',
    );
    assert.equal(map.sourcesContent, undefined, 'no sources inside');
    // Line-only: each generated line has at most one segment (no ',' separating segments within a line).
    assert.ok(!map.mappings.includes(','), 'one segment per line');
  });
});
