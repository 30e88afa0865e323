import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import proto from '@temporalio/proto';
import {
  cloudSearchAttributeCommand,
  compareSearchAttributes,
  heraldSearchAttributeTypes,
  searchAttributeProblem,
} from '../../src/temporal/namespace.js';
import { searchAttributeFlags } from '../../workflows/search-attributes.js';

const { INDEXED_VALUE_TYPE_KEYWORD: keyword, INDEXED_VALUE_TYPE_INT: int } =
  proto.temporal.api.enums.v1.IndexedValueType;
const all = {
  HeraldDeliveryStatus: keyword,
  HeraldSubscriptionId: keyword,
  HeraldEventType: keyword,
  HeraldIntegratorId: keyword,
  HeraldAttemptCount: int,
};

describe("Herald's search attributes in a namespace", () => {
  it('are what the workflows define, with the types the dev server is given', () => {
    assert.deepEqual(heraldSearchAttributeTypes, all);
    const flags = Object.entries(all).map(([name, type]) => `${name}=${type === int ? 'Int' : 'Keyword'}`);
    assert.deepEqual([...searchAttributeFlags].sort(), flags.sort());
  });

  it('pass when every attribute is registered with its type', () => {
    const state = compareSearchAttributes({ ...all, Other: keyword });
    assert.deepEqual(state, { present: Object.keys(all), missing: [], conflicting: [] });
    assert.equal(searchAttributeProblem('default', state), null);
  });

  it('name the missing ones with their types, and the command that registers them', () => {
    const { HeraldEventType: _dropped, HeraldAttemptCount: _too, ...rest } = all;
    const state = compareSearchAttributes(rest);
    assert.deepEqual(state.missing, ['HeraldEventType (Keyword)', 'HeraldAttemptCount (Int)']);
    assert.deepEqual(state.conflicting, []);
    const problem = searchAttributeProblem('prod', state) ?? '';
    assert.match(
      problem,
      /namespace prod lacks Herald's search attributes HeraldEventType \(Keyword\), HeraldAttemptCount/,
    );
    assert.match(problem, /run `herald temporal setup`/);
  });

  it('name the tcld command that adds the missing ones on Temporal Cloud, with their types', () => {
    const { HeraldEventType: _dropped, HeraldAttemptCount: _too, ...rest } = all;
    assert.equal(
      cloudSearchAttributeCommand('herald-prod.a1b2c', compareSearchAttributes(rest)),
      'tcld namespace search-attributes add -n herald-prod.a1b2c --sa "HeraldEventType=Keyword" ' +
        '--sa "HeraldAttemptCount=Int"',
    );
  });

  it('tell a wrongly typed one apart: setup cannot fix it in place', () => {
    const state = compareSearchAttributes({ ...all, HeraldAttemptCount: keyword });
    assert.deepEqual(state.missing, []);
    assert.deepEqual(state.conflicting, ['HeraldAttemptCount is Keyword, Herald needs Int']);
    assert.match(searchAttributeProblem('default', state) ?? '', /wrong type: .*search-attribute remove/);
  });
});
