import { filterShape } from '../../../src/observability/databaseOpTally';

describe('database op tally: filter shapes', () => {
  it('names top-level keys, and the operators of an operator object', () => {
    expect(filterShape({ _id: 'x', tenant_id: 't' })).toBe('_id,tenant_id');
    expect(filterShape({ due_at: { $lt: new Date() }, state: { $in: ['a'] } })).toBe('due_at:$lt,state:$in');
  });

  it('treats dates, arrays and embedded documents as values', () => {
    expect(filterShape({ at: new Date(), tags: ['a'], customer: { phone: '+1' } })).toBe('at,tags,customer');
    expect(filterShape(undefined)).toBe('');
  });
});
