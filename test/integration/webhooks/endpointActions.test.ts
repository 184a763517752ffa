import type { Db } from 'mongodb';
import { forgetEndpoints } from '../../../src/webhooks/endpointDirectory';
import { createEndpoint, deleteEndpoint, endpointPlaces, rotateEndpointSecret, updateEndpoint } from '../../../src/webhooks/endpointActions';
import { MAX_ENDPOINTS_PER_WORKSPACE, PREVIOUS_SECRET_GRACE_MS, webhookEndpoints } from '../../../src/webhooks/endpoints';
import { WebhookRefusal } from '../../../src/webhooks/refusal';
import { newWebhookEndpointDoc } from '../../support/documents';
import { openTestDb, testConfig, uniqueName } from '../../support/env';

/**
 * The console's webhook endpoint use cases (src/webhooks/endpointActions.ts) without HTTP: a
 * no is a WebhookRefusal with its reason and facts, another workspace's endpoint is null and
 * stays as it was, and a rotation keeps the old secret signing for its grace.
 */
describe('webhook endpoint actions', () => {
  let store: Awaited<ReturnType<typeof openTestDb>>;
  let db: Db;
  const now = new Date('2026-03-02T10:00:00Z');
  // A public address needs no lookup, so the tests do not depend on DNS.
  const fields = { url: 'https://93.184.216.34/in', event_types: [], enabled: true, description: null };

  beforeAll(async () => {
    store = await openTestDb(testConfig());
    db = store.db;
  });
  afterAll(async () => {
    await store?.drop();
  });

  it('refuses a private URL with webhook_url_private and the address, storing nothing', async () => {
    const tenant = uniqueName('ws');
    const refused = await createEndpoint(db, tenant, { ...fields, url: 'http://127.0.0.1:8080/hook' }, false, now).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(WebhookRefusal);
    expect(refused).toMatchObject({ reason: 'webhook_url_private', details: { host: '127.0.0.1', address: '127.0.0.1' } });
    expect(await webhookEndpoints(db).countDocuments({ tenant_id: tenant })).toBe(0);
  });

  it(`refuses endpoint ${MAX_ENDPOINTS_PER_WORKSPACE + 1} with webhook_limit_reached and the limit`, async () => {
    const tenant = uniqueName('ws');
    for (let i = 0; i < MAX_ENDPOINTS_PER_WORKSPACE; i++) await createEndpoint(db, tenant, fields, false, now);
    await expect(createEndpoint(db, tenant, fields, false, now)).rejects.toMatchObject({
      name: 'WebhookRefusal',
      reason: 'webhook_limit_reached',
      details: { limit: MAX_ENDPOINTS_PER_WORKSPACE },
    });
  });

  it(`keeps the limit under parallel requests: of ${MAX_ENDPOINTS_PER_WORKSPACE + 10} at once, ${MAX_ENDPOINTS_PER_WORKSPACE} are created`, async () => {
    const tenant = uniqueName('ws');
    const answers = await Promise.allSettled(Array.from({ length: MAX_ENDPOINTS_PER_WORKSPACE + 10 }, () => createEndpoint(db, tenant, fields, false, now)));
    const refused = answers.filter((a) => a.status === 'rejected').map((a) => (a as PromiseRejectedResult).reason as WebhookRefusal);
    expect(refused.map((r) => r.reason)).toEqual(Array(10).fill('webhook_limit_reached'));
    expect(await webhookEndpoints(db).countDocuments({ tenant_id: tenant })).toBe(MAX_ENDPOINTS_PER_WORKSPACE);
    // A deleted endpoint gives its place back.
    const one = answers.find((a) => a.status === 'fulfilled') as PromiseFulfilledResult<Awaited<ReturnType<typeof createEndpoint>>>;
    expect(await deleteEndpoint(db, tenant, one.value._id)).toBe(true);
    await createEndpoint(db, tenant, fields, false, now);
    await expect(createEndpoint(db, tenant, fields, false, now)).rejects.toMatchObject({ reason: 'webhook_limit_reached' });
  });

  it('counts endpoints stored before places were claimed, and gives back a place whose endpoint was never written', async () => {
    const tenant = uniqueName('ws');
    for (let i = 0; i < MAX_ENDPOINTS_PER_WORKSPACE - 1; i++) await webhookEndpoints(db).insertOne(newWebhookEndpointDoc(tenant, fields.url));
    await createEndpoint(db, tenant, fields, false, now);
    await expect(createEndpoint(db, tenant, fields, false, now)).rejects.toMatchObject({ reason: 'webhook_limit_reached' });
    // A place claimed by a create that died before writing its endpoint is reclaimed once it is a minute old.
    const other = uniqueName('ws');
    await endpointPlaces(db).insertOne({ _id: `${other}|whk|0`, tenant_id: other, endpoint_id: 'whk_never_written', taken_at: new Date(Date.now() - 120_000) });
    for (let i = 0; i < MAX_ENDPOINTS_PER_WORKSPACE; i++) await createEndpoint(db, other, fields, false, now);
    expect(await webhookEndpoints(db).countDocuments({ tenant_id: other })).toBe(MAX_ENDPOINTS_PER_WORKSPACE);
  });

  it("answers null for another workspace's endpoint and leaves it as it was", async () => {
    const owner = uniqueName('ws');
    const other = uniqueName('ws');
    const endpoint = await createEndpoint(db, owner, fields, false, now);
    expect(await updateEndpoint(db, other, endpoint._id, { enabled: false }, false, now)).toBeNull();
    expect(await rotateEndpointSecret(db, other, endpoint._id, now)).toBeNull();
    expect(await deleteEndpoint(db, other, endpoint._id)).toBe(false);
    const stored = await webhookEndpoints(db).findOne({ _id: endpoint._id });
    expect(stored).toMatchObject({ enabled: true, secret: endpoint.secret, previous_secret: null });
  });

  it('rotates the secret: a new one, the old one kept as previous until the grace ends', async () => {
    const tenant = uniqueName('ws');
    const endpoint = await createEndpoint(db, tenant, fields, false, now);
    const later = new Date(now.getTime() + 60_000);
    const rotated = await rotateEndpointSecret(db, tenant, endpoint._id, later);
    expect(rotated!.secret).toMatch(/^whsec_/);
    expect(rotated!.secret).not.toBe(endpoint.secret);
    expect(rotated!.previous_secret).toBe(endpoint.secret);
    expect(rotated!.previous_secret_expires_at).toEqual(new Date(later.getTime() + PREVIOUS_SECRET_GRACE_MS));
    forgetEndpoints(tenant);
  });

  it('never loses a secret to parallel rotations: the winners form one chain from the old secret to the stored one', async () => {
    const tenant = uniqueName('ws');
    const endpoint = await createEndpoint(db, tenant, fields, false, now);
    const answers = await Promise.allSettled(Array.from({ length: 8 }, () => rotateEndpointSecret(db, tenant, endpoint._id, now)));
    const won = answers.filter((a) => a.status === 'fulfilled').map((a) => (a as PromiseFulfilledResult<Awaited<ReturnType<typeof rotateEndpointSecret>>>).value!);
    const refused = answers.filter((a) => a.status === 'rejected').map((a) => ((a as PromiseRejectedResult).reason as WebhookRefusal).reason);
    expect(won.length).toBeGreaterThanOrEqual(1);
    expect(refused).toEqual(Array(8 - won.length).fill('webhook_secret_rotating'));
    // Each winner replaced the secret the one before it set: a secret shown to a caller is either stored or the previous of the one that replaced it.
    const bySecretReplaced = new Map(won.map((w) => [w.previous_secret, w.secret]));
    expect(bySecretReplaced.size).toBe(won.length);
    let secret = endpoint.secret;
    for (let i = 0; i < won.length; i++) secret = bySecretReplaced.get(secret) ?? 'chain broken';
    const stored = await webhookEndpoints(db).findOne({ _id: endpoint._id });
    expect(stored!.secret).toBe(secret);
    forgetEndpoints(tenant);
  });
});
