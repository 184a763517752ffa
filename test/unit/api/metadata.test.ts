import { z } from 'zod';
import { METADATA_LIMITS, metadataIssues, metadataSchema } from '../../../src/domain/metadata';

/** The one rule for `metadata` (src/domain/metadata.ts, docs/decisions/README.md). */
describe('metadata', () => {
  const nested = (levels: number): Record<string, unknown> => {
    let value: Record<string, unknown> = { leaf: 1 };
    for (let i = 1; i < levels; i++) value = { [`l${i}`]: value };
    return { top: value };
  };

  it.each([
    [{}],
    [{ order: 'A-1', attempt: 2, vip: true, note: null }],
    [{ order: { id: 'A-1', items: [{ sku: 'x', qty: 1 }, 'loose', 3] } }],
    [{ tags: ['a', 'b'], rows: [{ cells: [1, 2] }] }],
    [{ campaign_id: 'cmp_1', campaign_name: 'Spring' }],
    [{ 'key-with_odd chars$inside': 'ok', 'ünïcode': 'ok', 'a$': 1 }],
    [{ ['k'.repeat(METADATA_LIMITS.keyMaxChars)]: 1 }],
    [{ text: 'value with . and $ and \u0000 is fine' }],
    [nested(METADATA_LIMITS.maxDepth)],
  ])('accepts %j', (metadata) => {
    expect(metadataIssues(metadata)).toEqual([]);
  });

  it.each([
    [{ a: [[1]] }, ['a', 0], 'Metadata may not hold an array directly inside an array.'],
    [{ a: [{ b: [[]] }] }, ['a', 0, 'b', 0], 'Metadata may not hold an array directly inside an array.'],
    [{ $set: 1 }, ['$set'], 'Metadata keys may not start with "$".'],
    [{ a: { $b: 1 } }, ['a', '$b'], 'Metadata keys may not start with "$".'],
    [{ 'a.b': 1 }, ['a.b'], 'Metadata keys may not contain ".".'],
    [{ a: [{ 'x.y': 1 }] }, ['a', 0, 'x.y'], 'Metadata keys may not contain ".".'],
    [{ 'a\u0000b': 1 }, ['a\u0000b'], 'Metadata keys may not contain NUL characters.'],
    [{ '': 1 }, [''], 'Metadata keys may not be empty.'],
    [{ ['k'.repeat(METADATA_LIMITS.keyMaxChars + 1)]: 1 }, ['k'.repeat(METADATA_LIMITS.keyMaxChars + 1)], 'Metadata keys are at most 100 characters.'],
    [nested(METADATA_LIMITS.maxDepth + 1), ['top', 'l5', 'l4', 'l3', 'l2', 'l1'], 'Metadata nests at most 5 levels of objects and arrays.'],
    [{ big: 'x'.repeat(METADATA_LIMITS.maxJsonBytes) }, [], 'Metadata is at most 16384 bytes as JSON.'],
  ])('refuses case %#, at %j', (metadata, path, message) => {
    expect(metadataIssues(metadata)).toEqual([{ path, message }]);
  });

  it('names every offending key, not just the first', () => {
    expect(metadataIssues({ $a: 1, ok: { 'b.c': 2 }, d: [[3]] }).map((issue) => issue.path)).toEqual([['$a'], ['ok', 'b.c'], ['d', 0]]);
  });

  it('counts the size in UTF-8 bytes of compact JSON', () => {
    const overhead = JSON.stringify({ s: '' }).length;
    expect(metadataIssues({ s: 'x'.repeat(METADATA_LIMITS.maxJsonBytes - overhead) })).toEqual([]);
    expect(metadataIssues({ s: 'é'.repeat(Math.ceil((METADATA_LIMITS.maxJsonBytes - overhead) / 2) + 1) })).toHaveLength(1);
  });

  it('as a request schema: a custom issue whose path starts at metadata', () => {
    const body = z.object({ metadata: metadataSchema.default({}) });
    const parsed = body.safeParse({ metadata: { a: [[1]], $b: 2 } });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((issue) => [issue.path, issue.code])).toEqual([
      [['metadata', 'a', 0], 'custom'],
      [['metadata', '$b'], 'custom'],
    ]);
    expect(body.parse({}).metadata).toEqual({});
  });

  it('describes the rule in the JSON Schema the OpenAPI document is built from', () => {
    const schema = z.toJSONSchema(metadataSchema, { io: 'input' }) as Record<string, unknown>;
    expect(schema.description).toMatch(/not starting with `\$`/);
    const names = schema.propertyNames as { minLength: number; maxLength: number; pattern: string };
    expect(names).toMatchObject({ minLength: 1, maxLength: METADATA_LIMITS.keyMaxChars });
    const pattern = new RegExp(names.pattern);
    expect(['order', 'a$', 'x y'].every((k) => pattern.test(k))).toBe(true);
    expect(['$set', 'a.b', 'a\u0000'].some((k) => pattern.test(k))).toBe(false);
  });
});
