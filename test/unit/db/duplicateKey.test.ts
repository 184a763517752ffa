import { MongoServerError } from 'mongodb';
import { isDuplicateKey, onlyDuplicateKeys } from '../../../src/db/duplicateKey';

describe('duplicate keys: the one test every claim and upsert uses', () => {
  it('a server error with code 11000 is a duplicate key; another code, a plain error or no error is not', () => {
    expect(isDuplicateKey(new MongoServerError({ message: 'E11000 duplicate key error', code: 11000 }))).toBe(true);
    expect(isDuplicateKey(new MongoServerError({ message: 'not primary', code: 10107 }))).toBe(false);
    expect(isDuplicateKey(new Error('E11000 duplicate key error'))).toBe(false);
    expect(isDuplicateKey(undefined)).toBe(false);
    expect(isDuplicateKey('11000')).toBe(false);
  });

  it('a bulk write refused only duplicates when every code is 11000 (none refused counts as only duplicates)', () => {
    expect(onlyDuplicateKeys([11000, 11000])).toBe(true);
    expect(onlyDuplicateKeys([])).toBe(true);
    expect(onlyDuplicateKeys([11000, 121])).toBe(false);
    expect(onlyDuplicateKeys([undefined])).toBe(false);
    expect(onlyDuplicateKeys(new Map([[0, 11000], [3, 11000]]).values())).toBe(true);
  });
});
