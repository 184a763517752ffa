import type { Recipient } from '../../../src/campaigns/audience';
import { STAGING_CHUNK, STAGING_CHUNK_BYTES, stagingChunks } from '../../../src/campaigns/staging';

const whatsapp = (n: number): Recipient => ({ contact_id: `cnt_${n}`, to: `+9198${String(n).padStart(8, '0')}`, name: `Person ${n}`, variables: [`Person ${n}`, 'A-1', 'Friday'] });
const call = (n: number): Recipient => ({ ...whatsapp(n), variables: [], call: { purpose: 'p'.repeat(500), script: 's'.repeat(3_000) } });

/** Every position once, in order, with no empty write. */
function expectCovering(chunks: { start: number; end: number }[], length: number): void {
  expect(chunks[0]?.start).toBe(0);
  expect(chunks.at(-1)?.end).toBe(length);
  for (const [i, c] of chunks.entries()) {
    expect(c.end).toBeGreaterThan(c.start);
    if (i > 0) expect(c.start).toBe(chunks[i - 1]!.end);
  }
}

describe('stagingChunks', () => {
  it(`writes WhatsApp recipients ${STAGING_CHUNK} at a time`, () => {
    const list = Array.from({ length: 12_001 }, (_, n) => whatsapp(n));
    const chunks = stagingChunks(list);
    expect(chunks).toEqual([
      { start: 0, end: 5_000 },
      { start: 5_000, end: 10_000 },
      { start: 10_000, end: 12_001 },
    ]);
  });

  it('writes fewer call recipients at a time, whose rendered purpose and script make each document large', () => {
    const list = Array.from({ length: 2_000 }, (_, n) => call(n));
    const chunks = stagingChunks(list);
    expectCovering(chunks, 2_000);
    // 3,500 characters of text each: about 500 per write, far below the 5,000 count.
    for (const c of chunks) {
      expect((c.end - c.start) * 3_500).toBeLessThanOrEqual(STAGING_CHUNK_BYTES);
      expect(c.end - c.start).toBeLessThan(STAGING_CHUNK / 5);
    }
    expect(chunks.length).toBe(4);
  });

  it('answers no write for an empty list and one for a single recipient', () => {
    expect(stagingChunks([])).toEqual([]);
    expect(stagingChunks([call(0)])).toEqual([{ start: 0, end: 1 }]);
  });
});
