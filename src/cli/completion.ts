import type { Command } from 'commander';

// `herald completion bash|zsh`: scripts generated from the command tree, so that they offer exactly the groups,
// commands and flags that `herald` parses. Both find the command typed so far by walking the words on the line.

export const SHELLS = ['bash', 'zsh'] as const;
export type Shell = (typeof SHELLS)[number];

interface Node {
  /** The words after `herald` (empty for `herald` itself). */
  readonly path: string;
  /** What may come next, with a line each: subcommands, then flags. */
  readonly words: ReadonlyArray<readonly [word: string, text: string]>;
  /** Whether an argument is a file name (`events publish <file>`). */
  readonly files: boolean;
}

const HELP_FLAG = ['--help', 'show this help'] as const;
const HELP_COMMAND = ['help', 'show the help of a group or command'] as const;

function nodesOf(cmd: Command, path: string[] = []): Node[] {
  const words = [
    ...cmd.commands.map((c) => [c.name(), c.summary() || c.description()] as const),
    ...(cmd.commands.length > 0 ? [HELP_COMMAND] : []),
    ...cmd.options.map((o) => [o.long!, o.description] as const),
    HELP_FLAG,
  ];
  const files = cmd.registeredArguments.some((a) => a.name() === 'file');
  const here: Node = { path: path.join(' '), words, files };
  return [here, ...cmd.commands.flatMap((c) => nodesOf(c, [...path, c.name()]))];
}

/** The flags whose value is a file name, as a case pattern: after them, complete file names. */
const fileFlags = (program: Command): string => {
  const all = (cmd: Command): Command[] => [cmd, ...cmd.commands.flatMap(all)];
  const flags = all(program).flatMap((c) => c.options.filter((o) => o.flags.endsWith('<file>')).map((o) => o.long!));
  // A pattern that matches no word keeps the script valid when no flag takes a file.
  return flags.length > 0 ? [...new Set(flags)].join('|') : '--no-file-flag';
};

const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

function bash(program: Command, nodes: Node[]): string {
  const known = nodes.filter((n) => n.path !== '').map((n) => quote(n.path));
  const cases = nodes.map((n) => {
    const words = `compgen -W ${quote(n.words.map(([w]) => w).join(' '))} -- "$cur"`;
    const reply = n.files ? `$(${words}) $(compgen -f -- "$cur")` : `$(${words})`;
    return `    ${quote(n.path)}) COMPREPLY=(${reply}) ;;`;
  });
  return `# bash completion for herald: \`source <(herald completion bash)\` in ~/.bashrc, or save the output as
# ~/.local/share/bash-completion/completions/herald
_herald() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" path="" next i
  for ((i = 1; i < COMP_CWORD; i++)); do
    # \`herald help <command>\` completes as the command itself would
    [[ $i == 1 && \${COMP_WORDS[1]} == help ]] && continue
    next="\${path:+$path }\${COMP_WORDS[i]}"
    case "$next" in
    ${known.join('|')}) path="$next" ;;
    esac
  done
  case "$prev" in
    ${fileFlags(program)}) COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  case "$path" in
${cases.join('\n')}
  esac
}
complete -F _herald herald
`;
}

/** zsh's _describe items: `word:text`, a colon in the word escaped. */
const item = ([word, text]: readonly [string, string]): string => quote(`${word.replace(/:/g, '\\:')}:${text}`);

function zsh(program: Command, nodes: Node[]): string {
  const known = nodes.filter((n) => n.path !== '').map((n) => quote(n.path));
  const cases = nodes.map(
    (n) => `    (${quote(n.path)}) items=(${n.words.map(item).join(' ')})${n.files ? '; _files' : ''} ;;`,
  );
  return `#compdef herald
# zsh completion for herald: \`source <(herald completion zsh)\` in ~/.zshrc after compinit, or save the output as
# _herald in a folder of $fpath
_herald() {
  local p="" next i
  local -a items
  for ((i = 2; i < CURRENT; i++)); do
    [[ $i == 2 && \${words[2]} == help ]] && continue
    next="\${p:+$p }\${words[i]}"
    case "$next" in
      (${known.join('|')}) p="$next" ;;
    esac
  done
  case "\${words[CURRENT-1]}" in
    (${fileFlags(program)}) _files; return ;;
  esac
  case "$p" in
${cases.join('\n')}
  esac
  _describe -t commands herald items
}
if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then _herald "$@"; else compdef _herald herald; fi
`;
}

/** The completion script for `shell`, from the commands `program` knows. */
export function completionScript(program: Command, shell: Shell): string {
  const nodes = nodesOf(program);
  return shell === 'bash' ? bash(program, nodes) : zsh(program, nodes);
}
