// What an attempt keeps of a receiver's answer is bounded in bytes, whatever the receiver sends (issue 32, item 5).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { readBounded, summarizeHeaders, utf8Prefix } from '../../src/net/http-outcome.js';

const bodyOf = (text: string) => Readable.from([Buffer.from(text, 'utf8')]);

describe('response summary bounds', () => {
  it('keeps each allow-listed header value to 256 bytes and drops the others', () => {
    const summary = summarizeHeaders({
      location: `https://x.example/${'l'.repeat(16_000)}`,
      'retry-after': '30',
      'set-cookie': ['secret=1'],
      'x-large': 'y'.repeat(10_000),
    });
    assert.deepEqual(Object.keys(summary).sort(), ['location', 'retry-after']);
    assert.equal(Buffer.byteLength(summary.location!), 256);
    assert.equal(summary['retry-after'], '30');
  });

  it('keeps at most 1 KiB of a body, cut before a character, never inside one', async () => {
    const read = await readBounded(bodyOf('é'.repeat(2048)), 1024); // 2 bytes each
    assert.equal(read.body, 'é'.repeat(512));
    assert.equal(read.truncated, true);
    const odd = await readBounded(bodyOf('€'.repeat(1000)), 1024); // 3 bytes each: byte 1,024 is inside one
    assert.equal(odd.body, '€'.repeat(341));
    assert.ok(Buffer.byteLength(odd.body) <= 1024);
  });

  it('counts the bytes stored, not the bytes read: invalid UTF-8 decodes longer', () => {
    const text = Buffer.alloc(1024, 0xff).toString('utf8'); // 1,024 replacement characters, 3 bytes each
    const kept = utf8Prefix(text, 1024);
    assert.equal(Buffer.byteLength(kept), 1023);
    assert.equal(utf8Prefix('short', 1024), 'short');
  });
});
