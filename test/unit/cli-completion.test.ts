// `herald completion bash|zsh`: the bash script is sourced by a real bash, which is asked to complete words the
// way readline does (COMP_WORDS, COMP_CWORD), and answers in COMPREPLY.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { commands } from '../../src/cli/main.js';
import { cli } from '../helpers/cli.js';

const run = promisify(execFile);

/** The words of the commands in `group` (`''`: the first words of all), once each. */
const namesIn = (group: string): string[] => {
  const prefix = group === '' ? [] : group.split(' ');
  const names = commands
    .map((c) => c.name.split(' '))
    .filter((w) => w.length > prefix.length && prefix.every((p, i) => w[i] === p))
    .map((w) => w[prefix.length]!);
  return [...new Set(names)];
};

describe('herald completion', () => {
  let dir: string;
  let script: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'herald-completion-'));
    const printed = await cli({}, ['completion', 'bash']);
    assert.equal(printed.code, 0, printed.stderr);
    script = join(dir, 'herald.bash');
    writeFileSync(script, printed.stdout);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** What bash offers for the last of `words` (the word being typed; '' for a new one). */
  async function complete(...words: string[]): Promise<string[]> {
    const { stdout } = await run('bash', [
      '-c',
      'source "$1"; COMP_WORDS=(herald "${@:2}"); COMP_CWORD=$(($# - 1)); _herald; printf "%s\\n" "${COMPREPLY[@]}"',
      'bash',
      script,
      ...words,
    ]);
    return stdout
      .split('\n')
      .filter((w) => w !== '')
      .sort();
  }

  it("bash: the groups, then a group's commands, then a command's flags", async () => {
    const top = await complete('');
    for (const group of ['subscriptions', 'deliveries', 'events', 'admin', 'keys', 'temporal', 'completion', 'help'])
      assert.ok(top.includes(group), `${group} in ${top.join(' ')}`);
    assert.deepEqual(top, [...namesIn(''), 'completion', 'help', '--help'].sort());
    assert.deepEqual(await complete('sub'), ['subscriptions']);

    const subscriptions = await complete('subscriptions', '');
    assert.deepEqual(subscriptions, [...namesIn('subscriptions'), 'help', '--help'].sort());
    assert.ok(subscriptions.includes('rotate-key') && subscriptions.includes('pause'), subscriptions.join(' '));
    assert.deepEqual(
      await complete('admin', 'deliveries', ''),
      [...namesIn('admin deliveries'), 'help', '--help'].sort(),
    );
    assert.deepEqual(await complete('admin', 'deliveries', 'i'), ['inspect']);
    assert.deepEqual(await complete('help', 'subscriptions', 'rot'), ['rotate-key']);

    assert.deepEqual(await complete('deliveries', 'list', '--s'), ['--status', '--subscription']);
    assert.deepEqual(await complete('deliveries', 'list', '--json', '--l'), ['--limit']);
    assert.deepEqual(await complete('subscriptions', 'update', '--or'), ['--ordering']);
  });

  it('bash: file names after a flag that takes a file, and for `events publish`', async () => {
    writeFileSync(join(dir, 'key.pem'), '');
    assert.deepEqual(await complete('subscriptions', 'list', '--key', join(dir, 'key')), [join(dir, 'key.pem')]);
    assert.deepEqual(await complete('events', 'publish', join(dir, 'key')), [join(dir, 'key.pem')]);
  });

  it('zsh: a #compdef script describing the same groups and commands', async () => {
    const printed = await cli({}, ['completion', 'zsh']);
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, /^#compdef herald\n/);
    for (const name of namesIn('')) assert.match(printed.stdout, new RegExp(`'${name}:[^']`), name);
    for (const command of commands.filter((c) => c.name.startsWith('subscriptions ')))
      assert.ok(printed.stdout.includes(`'${command.name.split(' ')[1]}:`), command.name);
    const bad = await cli({}, ['completion', 'fish']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /bash, zsh/);
  });
});
