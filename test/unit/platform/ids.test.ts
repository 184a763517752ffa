import { newId } from '../../../src/domain/ids';

describe('newId', () => {
  it('is the prefix, an underscore and 24 hex digits', () => {
    expect(newId('cmp')).toMatch(/^cmp_[0-9a-f]{24}$/);
  });

  it('sorts by creation time', () => {
    const earlier = newId('msg', new Date('2026-01-01T00:00:00Z'));
    const later = newId('msg', new Date('2026-01-01T00:00:00.001Z'));
    expect(earlier < later).toBe(true);
  });
});
