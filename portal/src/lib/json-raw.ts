// Cuts the exact text of each event's `data` out of a GET /v1/query/events answer. Herald sends `data` as the
// producer wrote it (docs/events.md, payload fidelity); JSON.parse would re-encode numbers, escapes and key order.

const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\n' || c === '\r' || c === '\t';

function skipSpace(text: string, i: number): number {
  while (isSpace(text[i])) i++;
  return i;
}

function endOfString(text: string, i: number): number {
  // text[i] is the opening quote.
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === '"') return j + 1;
  }
  throw new SyntaxError('unterminated string');
}

/** The index just after the JSON value that starts at i (no recursion: depth is counted). */
function endOfValue(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return endOfString(text, i);
  if (c !== '{' && c !== '[') {
    let j = i;
    while (j < text.length && !isSpace(text[j]) && text[j] !== ',' && text[j] !== '}' && text[j] !== ']') j++;
    return j;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const d = text[j];
    if (d === '"') j = endOfString(text, j) - 1;
    else if (d === '{' || d === '[') depth++;
    else if (d === '}' || d === ']') {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  throw new SyntaxError('unterminated value');
}

/** Calls visit(key, start, end) for each member of the object starting at i; returns the index after it. */
function eachMember(text: string, i: number, visit: (key: string, start: number, end: number) => void): number {
  let j = skipSpace(text, i + 1);
  if (text[j] === '}') return j + 1;
  for (;;) {
    const keyEnd = endOfString(text, j);
    const key = JSON.parse(text.slice(j, keyEnd)) as string;
    const start = skipSpace(text, skipSpace(text, keyEnd) + 1);
    const end = endOfValue(text, start);
    visit(key, start, end);
    j = skipSpace(text, end);
    if (text[j] === '}') return j + 1;
    j = skipSpace(text, j + 1);
  }
}

/** event id → the exact text of its `data` member; empty when the text is not a listing. */
export function rawEventData(text: string): Map<string, string> {
  const out = new Map<string, string>();
  try {
    const root = skipSpace(text, 0);
    if (text[root] !== '{') return out;
    eachMember(text, root, (key, start, end) => {
      if (key !== 'events' || text[start] !== '[') return;
      let j = skipSpace(text, start + 1);
      while (j < end - 1 && text[j] === '{') {
        let id: string | null = null;
        let data: string | null = null;
        j = eachMember(text, j, (k, s, e) => {
          if (k === 'id') id = JSON.parse(text.slice(s, e)) as string;
          else if (k === 'data') data = text.slice(s, e);
        });
        if (id !== null && data !== null) out.set(id, data);
        j = skipSpace(text, j);
        if (text[j] === ',') j = skipSpace(text, j + 1);
      }
    });
  } catch {
    // A malformed answer: no exact bytes to show, the parsed payload still is.
  }
  return out;
}
