import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { attemptIdOf, deliveryIdOf, uuidV5 } from '../../src/store/derived-ids.js';

describe('derived ids', () => {
  it('are RFC 9562 version-5 uuids the API schema accepts', () => {
    const id = deliveryIdOf('e1', 's1');
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.ok(z.uuid().safeParse(id).success);
  });

  it('hash the namespace and the name with SHA-1 as RFC 9562 §5.5 says', () => {
    const ns = Buffer.from('3b8f4c1e9d2a4f6b8e0c5a7d1f2b9e64', 'hex');
    const hash = createHash('sha1')
      .update(Buffer.concat([ns, Buffer.from('x')]))
      .digest('hex');
    const id = uuidV5('x').replaceAll('-', '');
    assert.equal(id.slice(0, 12), hash.slice(0, 12));
    assert.equal(id.slice(13, 16), hash.slice(13, 16));
    assert.equal(id.slice(20), hash.slice(20, 32));
  });

  it('are stable and distinct per event, subscription and attempt number', () => {
    assert.equal(deliveryIdOf('e1', 's1'), deliveryIdOf('e1', 's1'));
    const ids = new Set([deliveryIdOf('e1', 's1'), deliveryIdOf('e1', 's2'), deliveryIdOf('e2', 's1')]);
    assert.equal(ids.size, 3);
    const d = deliveryIdOf('e1', 's1');
    assert.notEqual(attemptIdOf(d, 1), attemptIdOf(d, 2));
    assert.equal(attemptIdOf(d, 3), attemptIdOf(d, 3));
  });
});
