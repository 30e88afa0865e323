/**
 * A single-pass, non-recursive look at a JSON text before anything parses it: the nesting depth, numbers beyond the
 * range of a 64-bit float, a character that is not what the sender sent (`badCharAt`: where a UTF-8 decoder put
 * U+FFFD for invalid bytes), and the exact text of each top-level member or item. It does not validate the
 * grammar (JSON.parse does, after it); on text that is not JSON it still ends, and its results are then unused.
 */
export interface JsonScanOptions {
  /** Most arrays and objects open at once; the top-level value counts as 1. */
  maxDepth: number;
  /** Index of a character the decoder substituted; the scan reports the path of the token holding it. */
  badCharAt?: number;
}

export interface JsonProblem {
  /** JSON path from the top-level value: '' (the value itself), `.a[0]`, `["a.b"]`. */
  path: string;
  reason: 'too_deep' | 'number_out_of_range' | 'invalid_utf8';
}

export interface JsonScan {
  problem: JsonProblem | null;
  /** A top-level object's members, name → exact value text; a repeated name keeps the last, as JSON.parse does. */
  members: Map<string, string>;
  /** A top-level array's items, exact texts. */
  items: string[];
}

interface Frame {
  array: boolean;
  /** Object: the raw text of the current member name (quotes included); array: unused. */
  key: string;
  /** Array: the current item's index. */
  index: number;
  expectKey: boolean;
  /** Where the current member or item began (top-level frame only). */
  start: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NUMBER_START = /^-?[0-9]/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A member name as JSON.parse reads it (escapes decoded); the raw text if it is not a valid string. */
function memberName(raw: string): string {
  if (!raw.includes('\\')) return raw.slice(1, -1);
  try {
    return JSON.parse(raw) as string;
  } catch {
    return raw;
  }
}

function pathOf(stack: readonly Frame[]): string {
  return stack
    .map((f) => {
      if (f.array) return `[${f.index}]`;
      const name = memberName(f.key);
      return IDENTIFIER.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
    })
    .join('');
}

/** A number token beyond ±1.8e308: Number() reads it as JSON.parse does, as ±Infinity. Not-numbers are left alone. */
const overflows = (token: string): boolean => NUMBER_START.test(token) && Math.abs(Number(token)) === Infinity;

/** End of the string token starting at `i` (just past its closing quote, or the text's end). */
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const q = text.indexOf('"', j);
    if (q === -1) return text.length;
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/** End of a number or literal token starting at `i`. */
function scalarEnd(text: string, i: number): number {
  let j = i;
  while (j < text.length && !' \t\n\r,:[]{}"'.includes(text[j]!)) j++;
  return j;
}

export function scanJson(text: string, { maxDepth, badCharAt = -1 }: JsonScanOptions): JsonScan {
  const members = new Map<string, string>();
  const items: string[] = [];
  const stack: Frame[] = [];
  const result = (problem: JsonProblem | null): JsonScan => ({ problem, members, items });
  const problemAt = (reason: JsonProblem['reason']) => result({ path: pathOf(stack), reason });
  // A value that ends at `end` inside the top-level container is one of its members or items.
  const childEnded = (end: number) => {
    const top = stack[0];
    if (stack.length !== 1 || !top) return;
    const child = text.slice(top.start, end);
    if (top.array) items.push(child);
    else members.set(memberName(top.key), child);
  };
  const childStarts = (at: number) => {
    if (stack.length === 1) stack[0]!.start = at;
  };

  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    const top = stack.at(-1);
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (c === '{' || c === '[') {
      childStarts(i);
      if (stack.length >= maxDepth) return problemAt('too_deep');
      stack.push({ array: c === '[', key: '', index: 0, expectKey: c === '{', start: i + 1 });
      i++;
    } else if (c === '}' || c === ']') {
      stack.pop();
      i++;
      childEnded(i);
    } else if (c === ',') {
      if (top?.array) top.index++;
      else if (top) top.expectKey = true;
      i++;
    } else if (c === ':') {
      if (top) top.expectKey = false;
      i++;
    } else {
      // A string, number or literal; every other character was handled above, so the token is never empty.
      const quoted = text.charCodeAt(i) === QUOTE;
      const isKey = quoted && top !== undefined && !top.array && top.expectKey;
      const j = quoted ? stringEnd(text, i) : scalarEnd(text, i);
      if (isKey) top.key = text.slice(i, j);
      else childStarts(i);
      if (badCharAt >= i && badCharAt < j) return problemAt('invalid_utf8');
      if (!quoted && overflows(text.slice(i, j))) return problemAt('number_out_of_range');
      i = j;
      if (!isKey) childEnded(j);
    }
  }
  return result(null);
}
