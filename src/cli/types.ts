/** The streams and environment a command runs with: the real process's, or in-memory ones in tests. */
export interface CliIo {
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Ends a long-running command (`herald listen`) as Ctrl-C would; tests use it. */
  readonly signal?: AbortSignal;
}

/** A `--name` flag: a boolean switch, or one taking a value (`multiple`: repeatable, the values in order). */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  /** The value's name in the help (`--key <file>`); `file` also makes shell completion offer file names. */
  readonly value?: string;
  readonly help: string;
}

export type Options = Readonly<Record<string, OptionSpec>>;

/** What the command line gave: flags by their names (`event-type`), then the arguments in order. */
export interface Parsed {
  readonly values: Readonly<Record<string, string | boolean | string[] | undefined>>;
  readonly positionals: string[];
}

/** One `herald` command as declared; the command line parses its flags and arguments (src/cli/program.ts). */
export interface CommandSpec {
  /** The words that select it (`integrators create`); the words before the last name its group. */
  readonly name: string;
  /** One line, shown in the lists of `herald --help` and `herald <group> --help`. */
  readonly summary: string;
  /** Its arguments in commander's notation: `<id>` required, `[key]` optional. */
  readonly args?: readonly string[];
  readonly options?: Options;
  /** Text shown after the flags in its `--help` (environment, details). */
  readonly notes?: string;
  /** Runs with what was parsed; resolves to the exit status. */
  action(input: Parsed, io: CliIo): Promise<number>;
}

/** A command ready to run on its own: `run(args)` parses `args` exactly as `herald <name> …args` would. */
export interface CliCommand extends CommandSpec {
  run(args: string[], io: CliIo): Promise<number>;
}
