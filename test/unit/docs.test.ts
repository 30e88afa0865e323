// The user documentation as data: every configuration variable documented, every relative link resolving to a file
// and, with an #anchor, to a heading of it (GitHub's slugs), and the README kept a short product page.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configSchema } from '../../src/config.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string): string => readFileSync(join(root, file), 'utf8');
const docs = readdirSync(join(root, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);
const pages = ['README.md', 'tools/mongo-wire/README.md', 'test/fixtures/workflow-code/README.md', ...docs];
// Pages another change adds; a link to one is checked like any other once it exists.
const announced = new Set(['docs/temporal-cluster.md']);

/** The lines outside fenced code blocks. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else return !fenced;
    return false;
  });
}

/** GitHub's anchor of a heading: its text lowercased, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Relative links `[text](target)` outside code: inline code spans are left out first. */
function links(text: string): string[] {
  const targets: string[] = [];
  for (const line of prose(text)) {
    for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1] ?? '';
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) targets.push(target);
    }
  }
  return targets;
}

describe('docs/configuration.md', () => {
  const names = (text: string) => new Set([...text.matchAll(/`([A-Z][A-Z0-9_]*_[A-Z0-9_]+)`/g)].map((m) => m[1]));
  const documented = names(read('docs/configuration.md'));

  it('documents every variable of the configuration schema', () => {
    const missing = Object.keys(configSchema.shape).filter((v) => !documented.has(v));
    assert.deepEqual(missing, []);
  });

  it('documents every variable the README names in its configuration section', () => {
    const section = /\n## Configuration\n([\s\S]*?)\n## /.exec(read('README.md'))?.[1];
    assert.ok(section, 'the README has a "## Configuration" section');
    const inReadme = [...names(section)].filter((v) => v !== undefined);
    assert.ok(inReadme.length >= 10, `the README names the most used variables (${inReadme.length})`);
    assert.deepEqual(
      inReadme.filter((v) => !documented.has(v)),
      [],
    );
  });
});

describe('relative links in the documentation', () => {
  for (const page of pages) {
    it(`${page}: every relative link resolves, with its #anchor`, () => {
      const broken: string[] = [];
      for (const target of links(read(page))) {
        const [path = '', anchor] = target.split('#');
        const file = path === '' ? page : relative(root, join(root, dirname(page), decodeURI(path)));
        if (!existsSync(join(root, file))) {
          if (!announced.has(file)) broken.push(`${target}: no file ${file}`);
          continue;
        }
        if (anchor !== undefined && anchor !== '' && !anchors(read(file)).has(anchor)) {
          broken.push(`${target}: no heading #${anchor} in ${file}`);
        }
      }
      assert.deepEqual(broken, []);
    });
  }
});

describe('README.md', () => {
  const text = read('README.md');

  it('stays a short page: at most 300 lines, prose lines of at most 120 characters, table cells of at most 300', () => {
    const lines = text.trimEnd().split('\n');
    assert.ok(lines.length <= 300, `${lines.length} lines`);
    const long = prose(text).filter((l) => !l.startsWith('|') && [...l].length > 120);
    assert.deepEqual(long, []);
    const cells = prose(text)
      .filter((l) => l.startsWith('|'))
      .flatMap((l) => l.split(' | ').map((c) => c.replace(/^\|\s*|\s*\|$/g, '').trim()))
      .filter((c) => [...c].length > 300);
    assert.deepEqual(cells, []);
  });

  it('says `npm test` in "## The two commands", the command .ci/run runs', () => {
    const section = /\n## The two commands\n([\s\S]*?)\n## /.exec(text)?.[1] ?? '';
    assert.match(section, /^npm test\b/m);
    assert.match(read('.ci/run'), /^npm test$/m);
  });
});
