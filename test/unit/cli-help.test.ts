// `herald --help`, `herald <group> --help`, `herald help <group|command>` and every command's `--help`, read from
// the registry of commands, in process with in-memory streams (no server is needed to ask for help).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { commands } from '../../src/cli/main.js';
import { cli } from '../helpers/cli.js';

/** Every group (the words before a command's last) with the names of what it holds. */
function groups(): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  for (const { name } of commands) {
    const words = name.split(' ');
    for (let i = 1; i < words.length; i++) {
      const group = words.slice(0, i).join(' ');
      found.set(group, (found.get(group) ?? new Set<string>()).add(words[i]!));
    }
  }
  return found;
}

const squeeze = (text: string): string => text.trim().replace(/\s+/g, ' ');

/** A flag's entry in a help: its line and the description's wrapped lines after it, spacing squeezed. */
function flagEntry(help: string, flag: string): string | undefined {
  const lines = help.split('\n');
  const at = lines.findIndex((l) => l.trimStart().startsWith(`${flag} `) || l.trim() === flag);
  if (at < 0) return undefined;
  const end = lines.findIndex((l, i) => i > at && !/^ {3,}[^-\s]/.test(l));
  return squeeze(lines.slice(at, end < 0 ? undefined : end).join(' '));
}

/** Flags several commands take (src/cli/flags.ts); `listen` prints deliveries, so its --json says so. */
const SHARED = ['json', 'key', 'limit', 'cursor', 'all'];

describe('herald help', () => {
  it('a group answers --help and `herald help <group>` with its commands, exit 0', async () => {
    const all = groups();
    assert.ok(all.has('subscriptions') && all.has('admin deliveries'), [...all.keys()].join(', '));
    for (const [group, members] of all) {
      const words = group.split(' ');
      const viaFlag = await cli({}, [...words, '--help']);
      assert.equal(viaFlag.code, 0, `${group} --help: ${viaFlag.stderr}`);
      assert.match(viaFlag.stdout, new RegExp(`^usage: herald ${group} `), group);
      for (const member of members)
        assert.match(viaFlag.stdout, new RegExp(`^  ${member} `, 'm'), `${group} ${member}`);
      const viaHelp = await cli({}, ['help', ...words]);
      assert.deepEqual([viaHelp.code, viaHelp.stdout], [0, viaFlag.stdout], `help ${group}`);
    }
    const bare = await cli({}, ['subscriptions']);
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /^usage: herald subscriptions [\s\S]*^ {2}rotate-key /m);
  });

  it('every command answers --help and `herald help <command>` with its usage and flags, exit 0', async () => {
    const seen = new Map<string, string>();
    for (const command of commands) {
      const words = command.name.split(' ');
      const help = await cli({}, [...words, '--help']);
      assert.equal(help.code, 0, `${command.name} --help: ${help.stderr}`);
      assert.match(help.stdout, new RegExp(`^usage: herald ${command.name}( |$)`, 'm'), command.name);
      assert.ok(squeeze(help.stdout).includes(command.summary), command.name);
      for (const flag of Object.keys(command.options ?? {})) {
        const line = flagEntry(help.stdout, `--${flag}`);
        assert.ok(line, `${command.name}: --${flag} is described`);
        // A flag shared by several commands is declared once: the same line wherever it appears.
        if (!SHARED.includes(flag) || command.name === 'listen') continue;
        const first = seen.get(flag) ?? line;
        seen.set(flag, first);
        assert.equal(line, first, `${command.name}: --${flag}`);
      }
      assert.equal((await cli({}, ['help', ...words])).stdout, help.stdout, `help ${command.name}`);
    }
    assert.deepEqual([...seen.keys()].sort(), [...SHARED].sort());
  });

  it('herald --help lists every command and documents the environment and the exit statuses', async () => {
    const help = await cli({}, ['--help']);
    assert.equal(help.code, 0);
    for (const { name } of commands) assert.match(help.stdout, new RegExp(`^  ${name}( |$)`, 'm'), name);
    assert.match(help.stdout, /^ {2}completion <shell> /m);
    assert.match(help.stdout, /^exit status:\n {2}0 +done\n {2}1 +failed: [\s\S]*^ {2}2 +usage: /m);
    assert.equal((await cli({}, ['help'])).stdout, help.stdout);
  });
});
