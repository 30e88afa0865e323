// The worker's Temporal SDK lines through pino: each SDK level at the pino level of the same name, fields kept, an
// error serialized with its message; the SDK's level follows LOG_LEVEL, WARN at most by default.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { temporalLogLevel, temporalPinoLogger } from '../../src/telemetry/temporal-pino-logger.js';

describe('Temporal SDK lines through pino', () => {
  it('maps every level and keeps the fields', () => {
    const out: Record<string, unknown>[] = [];
    const log = temporalPinoLogger(pino({ level: 'trace' }, { write: (l: string) => void out.push(JSON.parse(l)) }));
    log.trace('t', { a: 1 });
    log.debug('d');
    log.info('i');
    log.warn('w', { sdkComponent: 'core', deliveryId: 'd-1' });
    log.error('e', { error: new Error('boom') });
    log.log('WARN', 'via log');
    assert.deepEqual(
      out.map((l) => [l.level, l.msg]),
      [
        [10, 't'],
        [20, 'd'],
        [30, 'i'],
        [40, 'w'],
        [50, 'e'],
        [40, 'via log'],
      ],
    );
    assert.equal(out[0]!.a, 1);
    assert.deepEqual([out[3]!.sdkComponent, out[3]!.deliveryId], ['core', 'd-1']);
    assert.equal((out[4]!.error as { message?: string }).message, 'boom');
  });

  it('sets the SDK level from LOG_LEVEL', () => {
    assert.deepEqual((['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const).map(temporalLogLevel), [
      'TRACE',
      'DEBUG',
      'WARN',
      'WARN',
      'ERROR',
      'ERROR',
      'ERROR',
    ]);
  });
});
