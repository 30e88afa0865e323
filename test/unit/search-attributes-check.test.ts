import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import proto from '@temporalio/proto';
import { missingSearchAttributes } from '../../src/temporal/search-attributes-check.js';

const { INDEXED_VALUE_TYPE_KEYWORD: keyword, INDEXED_VALUE_TYPE_INT: int } =
  proto.temporal.api.enums.v1.IndexedValueType;
const all = {
  HeraldDeliveryStatus: keyword,
  HeraldSubscriptionId: keyword,
  HeraldEventType: keyword,
  HeraldIntegratorId: keyword,
  HeraldAttemptCount: int,
};

describe('search attribute check at worker start-up', () => {
  it('passes when every attribute is registered with its type', () => {
    assert.deepEqual(missingSearchAttributes({ ...all, Other: keyword }), []);
  });
  it('names the missing and the wrongly typed ones with the type they need', () => {
    const { HeraldEventType: _dropped, ...rest } = all;
    assert.deepEqual(missingSearchAttributes({ ...rest, HeraldAttemptCount: keyword }), [
      'HeraldEventType (Keyword)',
      'HeraldAttemptCount (Int)',
    ]);
  });
});
