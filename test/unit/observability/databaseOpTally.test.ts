import { filterShape, returnedDocuments } from '../../../src/observability/databaseOpTally';

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

describe('database op tally: documents returned', () => {
  it('counts the documents of a cursor batch, first or next', () => {
    expect(returnedDocuments({ cursor: { id: 0, ns: 'db.calls', firstBatch: [{ _id: 'a' }, { _id: 'b' }] }, ok: 1 })).toBe(2);
    expect(returnedDocuments({ cursor: { id: 7, ns: 'db.calls', nextBatch: [{ _id: 'c' }] }, ok: 1 })).toBe(1);
    expect(returnedDocuments({ cursor: { id: 0, ns: 'db.calls', firstBatch: [] }, ok: 1 })).toBe(0);
  });

  it("counts a findAndModify's document, and nothing for writes and other replies", () => {
    expect(returnedDocuments({ lastErrorObject: { n: 1 }, value: { _id: 'a' }, ok: 1 })).toBe(1);
    expect(returnedDocuments({ lastErrorObject: { n: 0 }, value: null, ok: 1 })).toBe(0);
    expect(returnedDocuments({ n: 3, ok: 1 })).toBe(0);
    expect(returnedDocuments(undefined)).toBe(0);
  });
});
