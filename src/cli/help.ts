import { Help, type Command, type HelpConfiguration } from 'commander';
import { DEFAULT_HERALD_URL } from './support.js';
import type { CliIo } from './types.js';

/** Every command's help: plain text, lower-case headings (`usage: herald keys add …`). */
export const sharedHelp: HelpConfiguration = { styleTitle: (title) => title.toLowerCase() };

const row = (name: string, text: string) => `  ${name.padEnd(20)}${text}`;

/** After `herald --help`'s list: the environment and the exit statuses (docs/cli.md says the same). */
export const EPILOGUE = [
  '',
  'environment:',
  row('HERALD_URL', `base URL of the Herald API (default ${DEFAULT_HERALD_URL})`),
  row('HERALD_ADMIN_TOKEN', 'bearer token of the admin API (operator commands; else .data/admin.token)'),
  row('HERALD_KEY_FILE', 'integrator private key PEM file (integrator commands; or --key FILE)'),
  row('HERALD_PRIVATE_KEY', 'the integrator private key PEM itself (else .data/integrator.pem)'),
  '',
  'exit status:',
  row('0', 'done'),
  row('1', 'failed: the API answered an error (its status and code on stderr), it could not be reached, or a'),
  row('', 'credential or file is missing; `subscriptions test`: the attempt failed; `events publish`: an event failed'),
  row('2', 'usage: unknown command or flag, missing or extra argument, bad value (the usage follows on stderr)'),
  '',
  'Integrator commands print tables (--json: the API answer); operator commands print JSON unless they say so.',
  '`herald <group> --help` lists a group; `herald completion bash|zsh` prints a shell completion script.',
].join('\n');

/** The commands under `cmd`, groups opened up, in the order they were declared. */
const leaves = (cmd: Command): Command[] => cmd.commands.flatMap((c) => (c.commands.length > 0 ? leaves(c) : [c]));

/** The words selecting `cmd` after `herald`. */
const pathOf = (cmd: Command): string[] => (cmd.parent ? [...pathOf(cmd.parent), cmd.name()] : []);

/**
 * `herald --help` lists every command by its full name and arguments (`keys add <integratorId> [publicKey]`), not
 * only the groups, then the environment and the exit statuses. Set once the tree is built: the groups keep theirs.
 */
export function configureRootHelp(program: Command): void {
  program.configureHelp({
    ...sharedHelp,
    visibleCommands: (cmd) => new Help().visibleCommands(cmd).flatMap((c) => (c.commands.length > 0 ? leaves(c) : [c])),
    subcommandTerm: (cmd) => {
      const args = cmd.registeredArguments.map((a) => (a.required ? `<${a.name()}>` : `[${a.name()}]`));
      return [...(cmd.parent ? pathOf(cmd) : [cmd.name()]), ...args].join(' ');
    },
  });
  program.addHelpText('after', EPILOGUE);
}

/** `herald help [words…]`: the help of that group or command (exit 0), or the list and exit 2 if there is none. */
export function helpFor(program: Command, words: readonly string[], io: CliIo): number {
  let target = program;
  for (const word of words) {
    const next = target.commands.find((c) => c.name() === word);
    if (!next) {
      io.stderr.write(`herald: unknown command "${words.join(' ')}"\n\n`);
      program.outputHelp({ error: true });
      return 2;
    }
    target = next;
  }
  target.outputHelp();
  return 0;
}
