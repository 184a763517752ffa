import request from 'supertest';
import { KNOWLEDGE_LIMITS as L, knowledgeToolSource } from '../../../src/knowledge';
import { startTestApi, type TestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';
import { makePdf } from '../../support/pdf';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/**
 * Knowledge documents through the console's HTTP routes (docs/agents.md "Knowledge"): upload
 * of each format, list, read, delete, the refusals with their exact status, code and reason,
 * and the agents' `search_knowledge` tool finding (then no longer finding) what was uploaded,
 * with its trail row naming the document.
 */
describe('knowledge documents (/console/v1/workspaces/{id}/knowledge/documents)', () => {
  let api: TestApi;
  let ws: TestWorkspace;
  let admin: { Authorization: string };

  beforeAll(async () => {
    api = await startTestApi();
    ws = await createTestWorkspace(api.db);
    admin = bearer(api.config.CONSOLE_TOKEN!);
  });
  afterAll(async () => {
    await api?.close();
  });

  const documents = (workspaceId = ws.workspaceId) => `/console/v1/workspaces/${workspaceId}/knowledge/documents`;
  const upload = (body: string | Buffer, type: string, query = 'name=Doc', workspaceId?: string) =>
    request(api.server).post(`${documents(workspaceId)}?${query}`).set(admin).set('Content-Type', type).send(typeof body === 'string' ? Buffer.from(body) : body);
  const search = (query: string, workspaceId = ws.workspaceId) =>
    request(api.server).post(`/console/v1/workspaces/${workspaceId}/knowledge/search`).set(admin).send({ query });

  it('uploads Markdown, a PDF and an FAQ CSV; lists them newest first; reads one', async () => {
    const md = await upload('# Returns\nItems can be returned within 30 days.\n\n## Damaged items\nA damaged kettle is replaced free of charge.', 'text/markdown', 'name=Returns%20policy&file_name=returns.md');
    expect(md.status).toBe(201);
    expect(md.body).toEqual({
      document_id: expect.stringMatching(/^kdoc_[0-9a-f]{24}$/),
      name: 'Returns policy',
      file_name: 'returns.md',
      format: 'markdown',
      bytes: expect.any(Number),
      passages: 2,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.+\+00:00$/),
    });
    const pdf = await upload(makePdf([['Warranty', 'Every kettle carries a two year warranty.'], ['Spare lids cost 300 rupees.']]), 'application/pdf', 'name=Warranty&file_name=warranty.pdf');
    expect(pdf.status).toBe(201);
    expect(pdf.body).toMatchObject({ name: 'Warranty', format: 'pdf', passages: 2 });
    const faq = await upload('question,answer\nHow long does a refund take?,Five working days.\nDo you ship abroad?,Only within India.\n', 'text/csv; charset=utf-8', 'name=FAQ');
    expect(faq.status).toBe(201);
    expect(faq.body).toMatchObject({ name: 'FAQ', format: 'faq_csv', passages: 2, file_name: null });
    const text = await upload('Our shop opens at 9 and closes at 7, Monday to Saturday.', 'text/plain', 'name=Hours');
    expect(text.body).toMatchObject({ format: 'text', passages: 1 });

    const list = await request(api.server).get(documents()).set(admin);
    expect(list.status).toBe(200);
    expect(list.body.limit).toBe(L.maxDocumentsPerWorkspace);
    expect(list.body.items.map((d: { name: string }) => d.name)).toEqual(['Hours', 'FAQ', 'Warranty', 'Returns policy']);

    const one = await request(api.server).get(`${documents()}/${pdf.body.document_id as string}`).set(admin);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(pdf.body);
  });

  it('the agents find a document by its words and the trail names it; after a delete they no longer do', async () => {
    const found = await search('warranty on my kettle');
    expect(found.status).toBe(200);
    const [top] = found.body.output.passages as { document_name: string; document_id: string; page?: number; text: string }[];
    expect(top).toMatchObject({ document_name: 'Warranty', page: 1, text: 'Warranty\nEvery kettle carries a two year warranty.' });
    expect(found.body.trail).toMatchObject({ kind: 'lookup', text: expect.stringContaining(`"Warranty" (${top!.document_id})`) });
    expect(found.body.trail.detail.documents).toContainEqual({ document_id: top!.document_id, name: 'Warranty' });

    // The same search through a tool source of its own (another process's cache) sees the same.
    const source = knowledgeToolSource({ db: api.db });
    const [tool] = await source({ tenantId: ws.workspaceId, agentId: 'bot_1', channel: 'voice' });
    expect(tool?.name).toBe('search_knowledge');
    const context = { tenantId: ws.workspaceId, agentId: 'bot_1', channel: 'voice' as const, runKey: 'r1', now: new Date() };
    expect(((await tool!.run(context, { query: 'refund' })).output as { passages: { document_name: string }[] }).passages[0]?.document_name).toBe('FAQ');

    const deleted = await request(api.server).delete(`${documents()}/${top!.document_id}`).set(admin);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ document_id: top!.document_id, deleted: true });
    // The other cache notices by the workspace's stamp, without being told.
    const after = await tool!.run(context, { query: 'warranty kettle' });
    expect((after.output as { passages: { document_name: string }[] }).passages.map((p) => p.document_name)).not.toContain('Warranty');
    expect((await search('warranty')).body.output.passages.map((p: { document_name: string }) => p.document_name)).not.toContain('Warranty');

    const again = await request(api.server).delete(`${documents()}/${top!.document_id}`).set(admin);
    expect(again.status).toBe(404);
    expect(again.body).toEqual(envelope('not_found', 'Knowledge document not found.'));
    expect((await request(api.server).get(`${documents()}/${top!.document_id}`).set(admin)).status).toBe(404);
  });

  it('a tool argument without a query answers ok:false for the agent, never throws', async () => {
    const [tool] = await knowledgeToolSource({ db: api.db })({ tenantId: ws.workspaceId, agentId: 'bot_1', channel: 'whatsapp' });
    const result = await tool!.run({ tenantId: ws.workspaceId, agentId: 'bot_1', channel: 'whatsapp', runKey: 'r2', now: new Date() }, { q: 'x' });
    expect(result).toMatchObject({ ok: false, output: { error: 'search_knowledge needs a query: the words to look for.' }, trail: { kind: 'lookup' } });
  });

  it('refuses what it cannot keep, with the reason', async () => {
    const bad = async (res: request.Response, status: number, code: string, message: string | RegExp, details: Record<string, unknown>) => {
      expect({ status: res.status, body: res.body as unknown }).toEqual({ status, body: envelope(code, message, details) });
    };
    await bad(await upload('%PDF-1.4 broken', 'application/pdf'), 400, 'invalid_argument', /^The PDF could not be read: /, { reason: 'invalid_pdf' });
    await bad(await upload(Buffer.from([0xff, 0xfe, 0x00]), 'text/plain'), 400, 'invalid_argument', 'The document is not UTF-8 text.', { reason: 'invalid_encoding' });
    await bad(await upload('question,answer\nOnly a question?,\n', 'text/csv'), 400, 'invalid_argument', 'Line 2 has no answer.', { reason: 'invalid_faq_csv', row: 2 });
    await bad(await upload('   \n', 'text/markdown'), 400, 'invalid_argument', 'The document has no text.', { reason: 'empty_document' });
    await bad(await upload('{}', 'application/json'), 415, 'invalid_argument', 'Send the file as text/plain, text/markdown, application/pdf, text/csv.', {});
    const rows = Array.from({ length: L.maxPassagesPerDocument + 1 }, (_, i) => `Q${i}?,A${i}.`).join('\n');
    await bad(await upload(`question,answer\n${rows}`, 'text/csv'), 400, 'invalid_argument', /^The document is too long/, { reason: 'too_many_passages', limit: L.maxPassagesPerDocument });
    await bad(await upload(Buffer.alloc(L.maxDocumentBytes + 1, 0x61), 'text/plain'), 413, 'invalid_argument', `The file is larger than ${L.maxDocumentBytes} bytes.`, {});
    const unnamed = await upload('text', 'text/plain', 'file_name=x');
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.error.code).toBe('invalid_argument');
    expect(unnamed.body.error.details.errors[0].loc).toEqual(['query', 'name']);
    const other = await createTestWorkspace(api.db);
    const mine = (await request(api.server).get(documents()).set(admin)).body.items[0].document_id as string;
    expect((await request(api.server).get(`${documents(other.workspaceId)}/${mine}`).set(admin)).status).toBe(404);
    expect((await request(api.server).get(`${documents()}/kdoc_nope`).set(admin)).body).toEqual(envelope('not_found', 'Knowledge document not found.'));
  });

  it(`keeps at most ${L.maxDocumentsPerWorkspace} documents per workspace, even when they arrive at once`, async () => {
    const full = await createTestWorkspace(api.db);
    const results = await Promise.all(
      Array.from({ length: L.maxDocumentsPerWorkspace + 3 }, (_, i) => upload(`Note number ${i}.`, 'text/plain', `name=Note%20${i}`, full.workspaceId)),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(L.maxDocumentsPerWorkspace);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(3);
    for (const r of refused) {
      expect({ status: r.status, body: r.body as unknown }).toEqual({
        status: 409,
        body: envelope('conflict', `A workspace can keep at most ${L.maxDocumentsPerWorkspace} knowledge documents; delete one first.`, {
          reason: 'document_limit_reached',
          limit: L.maxDocumentsPerWorkspace,
        }),
      });
    }
    // A delete gives its place back.
    const list = (await request(api.server).get(documents(full.workspaceId)).set(admin)).body.items as { document_id: string }[];
    expect(list).toHaveLength(L.maxDocumentsPerWorkspace);
    expect((await request(api.server).delete(`${documents(full.workspaceId)}/${list[0]!.document_id}`).set(admin)).status).toBe(200);
    expect((await upload('One more.', 'text/plain', 'name=More', full.workspaceId)).status).toBe(201);
  });
});
