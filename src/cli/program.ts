import { Argument, Command, CommanderError, Option } from 'commander';
import { HeraldApiError } from '../client/http.js';
import { completionScript, SHELLS } from './completion.js';
import { configureRootHelp, helpFor, sharedHelp } from './help.js';
import { heraldUrl, UsageError } from './support.js';
import type { CliCommand, CliIo, CommandSpec, Options } from './types.js';

// The command line on commander: one tree built from the declared commands, so that every command parses its flags
// and arguments the same way, answers `--help`, and belongs to a group that answers `--help` and `herald help`.

/** The groups' lines in `herald <group> --help` (a group is the words before a command's last). */
const GROUPS: Readonly<Record<string, string>> = {
  subscriptions: "The integrator's webhook subscriptions (signed with the integrator's key)",
  deliveries: "The integrator's deliveries (signed with the integrator's key)",
  events: "The integrator's event history (signed); publishing events (operator, admin token)",
  integrators: 'Operator: integrators (admin token)',
  keys: "Operator: integrators' request-signing keys (admin token)",
  admin: 'Operator: the admin API over every integrator (admin token)',
  'admin deliveries': "Operator: every integrator's deliveries (admin token)",
  temporal: 'Operator: Temporal itself, with the TEMPORAL_* settings of the API and the worker',
  retention: "Operator: the retention purge's Temporal Schedule, with the TEMPORAL_* settings (docs/retention.md)",
  storage: 'Development: the embedded MongoDB-wire data folder',
  portal: 'The integrator portal: links into it (signed, or operator with an integrator id), revoking sessions',
};

/** A one-line account of a failure: the API's status and error code, or why the API could not be reached. */
function describeFailure(err: unknown, env: CliIo['env']): string {
  if (err instanceof HeraldApiError) return err.message;
  if (err instanceof TypeError && err.message === 'fetch failed') {
    const cause = err.cause as { code?: string; message?: string } | undefined;
    return `cannot reach ${heraldUrl(env)}: ${cause?.code ?? cause?.message ?? 'network error'}`;
  }
  return err instanceof Error ? err.message : String(err);
}

function addOptions(cmd: Command, options: Options): void {
  for (const [name, spec] of Object.entries(options)) {
    const option = new Option(
      spec.type === 'boolean' ? `--${name}` : `--${name} <${spec.value ?? 'value'}>`,
      spec.help,
    );
    if (spec.multiple) option.argParser((value: string, previous?: string[]) => [...(previous ?? []), value]);
    cmd.addOption(option);
  }
}

/** Runs a command with what commander parsed: a failure is one line on stderr, exit 1; a usage mistake exit 2. */
async function invoke(spec: CommandSpec, cmd: Command, io: CliIo): Promise<number> {
  const given = cmd.opts<Record<string, string | boolean | string[] | undefined>>();
  const values = Object.fromEntries(cmd.options.map((o) => [o.long!.slice(2), given[o.attributeName()]]));
  const positionals = (cmd.processedArgs as Array<string | undefined>).filter((a): a is string => a !== undefined);
  try {
    return await spec.action({ values, positionals }, io);
  } catch (err) {
    io.stderr.write(`herald ${spec.name}: ${describeFailure(err, io.env)}\n`);
    if (!(err instanceof UsageError)) return 1;
    cmd.outputHelp({ error: true });
    return 2;
  }
}

const widthOf = (stream: NodeJS.WritableStream): number => {
  const tty = stream as { isTTY?: boolean; columns?: number };
  return (tty.isTTY ? tty.columns : undefined) ?? 80;
};

function buildProgram(registry: readonly CommandSpec[], io: CliIo, done: (status: number) => void): Command {
  // Settings given before the subcommands are made are inherited by them.
  const program = new Command('herald')
    .description(
      'Herald: durable, signed webhook delivery. Integrator commands sign; operator commands use the admin token.',
    )
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void io.stdout.write(text),
      writeErr: (text) => void io.stderr.write(text),
      outputError: (text, write) => write(text.replace(/^error: /, 'herald: ')),
      getOutHelpWidth: () => widthOf(io.stdout),
      getErrHelpWidth: () => widthOf(io.stderr),
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .configureHelp(sharedHelp)
    .showHelpAfterError()
    .allowExcessArguments(false)
    .helpOption('-h, --help', 'show this help')
    .helpCommand('help [command]', 'show the help of a group or command');
  const groups = new Map<string, Command>([['', program]]);
  const groupOf = (words: readonly string[]): Command => {
    const path = words.join(' ');
    let group = groups.get(path);
    if (!group) {
      group = groupOf(words.slice(0, -1))
        .command(words.at(-1)!)
        .description(GROUPS[path] ?? '');
      groups.set(path, group);
    }
    return group;
  };
  for (const spec of registry) {
    const words = spec.name.split(' ');
    const cmd = groupOf(words.slice(0, -1)).command(words.at(-1)!).description(spec.summary);
    for (const arg of spec.args ?? []) cmd.argument(arg);
    addOptions(cmd, spec.options ?? {});
    if (spec.notes) cmd.addHelpText('after', `\n${spec.notes}`);
    cmd.action(async () => done(await invoke(spec, cmd, io)));
  }
  program
    .command('completion')
    .description('Print the shell completion script for bash or zsh (docs/cli.md, "Completion")')
    .addArgument(new Argument('<shell>').choices(SHELLS))
    .action((shell: (typeof SHELLS)[number]) => void io.stdout.write(completionScript(program, shell)));
  configureRootHelp(program);
  return program;
}

/** Runs `herald <argv…>` over `registry`; resolves to the exit status: 0 done, 1 failed, 2 usage (docs/cli.md). */
export async function runProgram(registry: readonly CommandSpec[], argv: string[], io: CliIo): Promise<number> {
  let status = 0;
  const program = buildProgram(registry, io, (s) => (status = s));
  // `herald help keys add` and `herald --help keys add` both show that command's help (commander: only the group's).
  if (['help', '--help', '-h'].includes(argv[0] ?? '')) return helpFor(program, argv.slice(1), io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return status;
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    const help = err.code === 'commander.helpDisplayed' || (err.code === 'commander.help' && err.exitCode === 0);
    return help ? 0 : 2;
  }
}

/** A declared command that can also run on its own: `run(args)` is `herald <name> …args`. */
export function defineCommand(spec: CommandSpec): CliCommand {
  const command: CliCommand = {
    ...spec,
    run: (args, io) => runProgram([command], [...spec.name.split(' '), ...args], io),
  };
  return command;
}
