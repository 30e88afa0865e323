/** The streams and environment a command runs with: the real process's, or in-memory ones in tests. */
export interface CliIo {
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Ends a long-running command (`herald listen`) as Ctrl-C would; tests use it. */
  readonly signal?: AbortSignal;
}

/** One `herald` command; `name` is the words that select it (`integrators create`). */
export interface CliCommand {
  readonly name: string;
  /** One line, shown by `herald help`. */
  readonly summary: string;
  /** The synopsis and flags, shown by `herald help <command>` and on a usage error. */
  readonly usage: string;
  /** Runs with the arguments after the command's words; resolves to the process exit code. */
  run(args: string[], io: CliIo): Promise<number>;
}
