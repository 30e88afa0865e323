import type { Position } from '../cursor.js';
import { cmp, type Pos } from '../pages/index.js';

/** Where a newest-first page starts: strictly older than the cursor and than `createdBefore`, whichever is older. */
export function startBound(position: Position | null | undefined, createdBefore: Date | undefined): Pos | undefined {
  const at = position ? { c: position.createdAt.getTime(), i: position.id } : undefined;
  const before: Pos | undefined = createdBefore && { c: createdBefore.getTime(), i: '' };
  return at && before ? (cmp(at, before) < 0 ? at : before) : (at ?? before);
}
