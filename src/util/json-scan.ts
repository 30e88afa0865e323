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
  /** Object: where the raw text of the current member name starts and ends (quotes included). */
  keyStart: number;
  keyEnd: number;
  /** Array: the current item's index. */
  index: number;
  expectKey: boolean;
  /** Where the current member or item began (top-level frame only). */
  start: number;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const [SPACE, TAB, LF, CR, QUOTE, COMMA, COLON, BACKSLASH] = [0x20, 0x09, 0x0a, 0x0d, 0x22, 0x2c, 0x3a, 0x5c];
const [OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT] = [0x5b, 0x5d, 0x7b, 0x7d];
const [MINUS, DIGIT_0, DIGIT_9, LOWER_E, UPPER_E] = [0x2d, 0x30, 0x39, 0x65, 0x45];

/** Characters that end a number or literal token. */
const DELIMITER = new Uint8Array(128);
for (const c of [SPACE, TAB, LF, CR, QUOTE, COMMA, COLON, OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT]) {
  DELIMITER[c] = 1;
}

/** A member name as JSON.parse reads it (escapes decoded); the raw text if it is not a valid string. */
function memberName(raw: string): string {
  if (!raw.includes('\\')) return raw.slice(1, -1);
  try {
    return JSON.parse(raw) as string;
  } catch {
    return raw;
  }
}

function pathOf(text: string, stack: readonly Frame[]): string {
  return stack
    .map((f) => {
      if (f.array) return `[${f.index}]`;
      const name = memberName(text.slice(f.keyStart, f.keyEnd));
      return IDENTIFIER.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
    })
    .join('');
}

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
  let j = i + 1;
  for (let c = text.charCodeAt(j); j < text.length && (c >= 128 || DELIMITER[c] === 0); c = text.charCodeAt(++j));
  return j;
}

/**
 * A number token beyond ±1.8e308, which JSON.parse reads as ±Infinity (Number() reads JSON numbers the same way).
 * Only a token with an exponent or over 300 characters can be one; a token that is not a number is left alone.
 */
function overflows(text: string, i: number, j: number): boolean {
  const first = text.charCodeAt(text.charCodeAt(i) === MINUS ? i + 1 : i);
  if (!(first >= DIGIT_0 && first <= DIGIT_9)) return false;
  let exponent = j - i > 300;
  for (let k = i + 1; k < j && !exponent; k++) {
    const c = text.charCodeAt(k);
    exponent = c === LOWER_E || c === UPPER_E;
  }
  return exponent && Math.abs(Number(text.slice(i, j))) === Infinity;
}

export function scanJson(text: string, { maxDepth, badCharAt = -1 }: JsonScanOptions): JsonScan {
  const members = new Map<string, string>();
  const items: string[] = [];
  const stack: Frame[] = [];
  const problemAt = (reason: JsonProblem['reason']): JsonScan => ({
    problem: { path: pathOf(text, stack), reason },
    members,
    items,
  });
  // A value that ends at `end` inside the top-level container is one of its members or items.
  const childEnded = (end: number) => {
    const top = stack[0];
    if (stack.length !== 1 || !top) return;
    const child = text.slice(top.start, end);
    if (top.array) items.push(child);
    else members.set(memberName(text.slice(top.keyStart, top.keyEnd)), child);
  };
  const childStarts = (at: number) => {
    if (stack.length === 1) stack[0]!.start = at;
  };

  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === SPACE || c === LF || c === CR || c === TAB) {
      i++;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      childStarts(i);
      if (stack.length >= maxDepth) return problemAt('too_deep');
      const array = c === OPEN_ARRAY;
      stack.push({ array, keyStart: 0, keyEnd: 0, index: 0, expectKey: !array, start: i + 1 });
      i++;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      stack.pop();
      i++;
      childEnded(i);
    } else if (c === COMMA) {
      if (top?.array) top.index++;
      else if (top) top.expectKey = true;
      i++;
    } else if (c === COLON) {
      if (top) top.expectKey = false;
      i++;
    } else {
      // A string, number or literal; every other character was handled above, so the token is never empty.
      const quoted = c === QUOTE;
      const isKey = quoted && top !== undefined && !top.array && top.expectKey;
      const j = quoted ? stringEnd(text, i) : scalarEnd(text, i);
      if (isKey) {
        top.keyStart = i;
        top.keyEnd = j;
      } else childStarts(i);
      if (badCharAt >= i && badCharAt < j) return problemAt('invalid_utf8');
      if (!quoted && overflows(text, i, j)) return problemAt('number_out_of_range');
      i = j;
      if (!isKey) childEnded(j);
    }
  }
  return { problem: null, members, items };
}
