import { HeraldApiError } from '../client/http.js';
import { integratorsCreateCommand, integratorsGetCommand } from './commands/integrators.js';
import { eventsPublishCommand } from './commands/events-publish.js';
import { keygenCommand } from './commands/keygen.js';
import { keysAddCommand, keysRevokeCommand } from './commands/keys.js';
import { initCommand } from './commands/init.js';
import { listenCommand } from './commands/listen.js';
import { subscriptionCommands } from './commands/subscriptions.js';
import { deliveryCommands, subscriptionTestCommand } from './commands/deliveries.js';
import { eventsListCommand } from './commands/events-list.js';
import { adminDeliveryCommands } from './commands/admin-deliveries.js';
import { temporalCommands } from './commands/temporal.js';
import { DEFAULT_HERALD_URL, heraldUrl, UsageError } from './support.js';
import type { CliCommand, CliIo } from './types.js';

/** Every command `herald` knows, in the order `herald help` lists them. */
export const commands: readonly CliCommand[] = [
  // development
  initCommand,
  listenCommand,
  // integrator (signed with the integrator's key)
  ...subscriptionCommands,
  subscriptionTestCommand,
  ...deliveryCommands,
  eventsListCommand,
  // operator (admin token)
  keygenCommand,
  integratorsCreateCommand,
  integratorsGetCommand,
  keysAddCommand,
  keysRevokeCommand,
  eventsPublishCommand,
  ...adminDeliveryCommands,
  ...temporalCommands,
];

const HELP_WORDS = new Set(['help', '--help', '-h']);

function overview(registry: readonly CliCommand[]): string {
  const width = Math.max(...registry.map((c) => c.name.length), 'help [command]'.length) + 3;
  const line = (name: string, summary: string) => `  ${name.padEnd(width)}${summary}`;
  return [
    'usage: herald <command> [arguments]',
    '',
    'commands:',
    ...registry.map((c) => line(c.name, c.summary)),
    line('help [command]', 'This list, or the usage of one command (also: herald <command> --help)'),
    '',
    'environment:',
    line('HERALD_URL', `base URL of the Herald API (default ${DEFAULT_HERALD_URL})`),
    line('HERALD_ADMIN_TOKEN', 'bearer token of the admin API (operator commands; else .data/admin.token)'),
    line('HERALD_KEY_FILE', 'integrator private key PEM file (integrator commands; or --key FILE)'),
    line('HERALD_PRIVATE_KEY', 'the integrator private key PEM itself (else .data/integrator.pem)'),
    '',
    'Integrator commands print tables (--json: the API answer); operator commands print JSON unless they say so.',
    'Errors go to stderr with a non-zero exit status.',
    '',
  ].join('\n');
}

/** The command whose words start `argv` (the longest match) and the arguments after them. */
function resolve(argv: string[], registry: readonly CliCommand[]): { command: CliCommand; rest: string[] } | null {
  const matches = registry
    .map((command) => ({ command, words: command.name.split(' ') }))
    .filter(({ words }) => words.every((w, i) => argv[i] === w))
    .sort((a, b) => b.words.length - a.words.length);
  const best = matches[0];
  return best ? { command: best.command, rest: argv.slice(best.words.length) } : null;
}

/** A one-line account of a failure: the API's status and error code, or why the API could not be reached. */
function describe(err: unknown, env: CliIo['env']): string {
  if (err instanceof HeraldApiError) return err.message;
  if (err instanceof TypeError && err.message === 'fetch failed') {
    const cause = err.cause as { code?: string; message?: string } | undefined;
    return `cannot reach ${heraldUrl(env)}: ${cause?.code ?? cause?.message ?? 'network error'}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/** Runs `herald <argv…>` and resolves to the exit status: 0 ok, 1 failed, 2 usage error. */
export async function runCli(argv: string[], io: CliIo, registry: readonly CliCommand[] = commands): Promise<number> {
  const [first, ...after] = argv;
  if (first === undefined || HELP_WORDS.has(first)) {
    const target = after.length > 0 ? resolve(after, registry) : null;
    if (after.length > 0 && !target) {
      io.stderr.write(`herald: unknown command "${after.join(' ')}"\n\n${overview(registry)}`);
      return 2;
    }
    io.stdout.write(target ? `usage: ${target.command.usage}\n` : overview(registry));
    return first === undefined ? 2 : 0;
  }
  const found = resolve(argv, registry);
  if (!found) {
    io.stderr.write(`herald: unknown command "${argv.join(' ')}"\n\n${overview(registry)}`);
    return 2;
  }
  const { command, rest } = found;
  if (rest.some((a) => a === '--help' || a === '-h')) {
    io.stdout.write(`usage: ${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    io.stderr.write(`herald ${command.name}: ${describe(err, io.env)}\n`);
    if (err instanceof UsageError) {
      io.stderr.write(`usage: ${command.usage}\n`);
      return 2;
    }
    return 1;
  }
}
