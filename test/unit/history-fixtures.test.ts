// The replay fixtures are the histories of released workflow shapes: never modified nor removed while such runs can
// exist (docs/upgrade-workflow.md, "Versioning the delivery workflow"). manifest.json holds each one's SHA-256, and is
// itself append-only: every entry any committed version of it ever held must still be there, unchanged.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const folder = fileURLToPath(new URL('../fixtures/histories/', import.meta.url));
const manifestPath = 'test/fixtures/histories/manifest.json';
const root = fileURLToPath(new URL('../../', import.meta.url));
type Manifest = Record<string, string>;

const manifest = JSON.parse(readFileSync(`${folder}/manifest.json`, 'utf8')) as Manifest;
const sha256 = (name: string) =>
  createHash('sha256')
    .update(readFileSync(`${folder}/${name}`))
    .digest('hex');

/** Every committed version of the manifest (git history of this checkout), oldest first. */
function committedManifests(): { commit: string; manifest: Manifest }[] {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
  const commits = git('log', '--reverse', '--format=%H', '--', manifestPath).split('\n').filter(Boolean);
  return commits.map((commit) => ({
    commit,
    manifest: JSON.parse(git('show', `${commit}:${manifestPath}`)) as Manifest,
  }));
}

describe('replay fixtures', () => {
  it('each one in the manifest is present and byte-identical (SHA-256)', () => {
    assert.ok(Object.keys(manifest).length >= 8);
    for (const [name, digest] of Object.entries(manifest)) assert.equal(sha256(name), digest, `${name} was changed`);
  });

  it('each history in the folder is in the manifest (a new fixture is added to it)', () => {
    const files = readdirSync(folder).filter((f) => f.endsWith('.json') && f !== 'manifest.json');
    assert.deepEqual(files.sort(), Object.keys(manifest).sort());
  });

  it('the manifest only ever grows: no committed entry was removed or changed', () => {
    const versions = committedManifests();
    for (const { commit, manifest: earlier } of versions)
      for (const [name, digest] of Object.entries(earlier))
        assert.equal(manifest[name], digest, `${name}: entry of ${commit.slice(0, 10)} removed or changed`);
  });

  it('would notice a changed byte (the digest check is not vacuous)', () => {
    const [name] = Object.keys(manifest);
    const bytes = readFileSync(`${folder}/${name}`);
    bytes[bytes.length - 2]! ^= 1;
    assert.notEqual(createHash('sha256').update(bytes).digest('hex'), manifest[name!]);
  });
});
