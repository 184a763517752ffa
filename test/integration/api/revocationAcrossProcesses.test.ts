import request from 'supertest';
import { CREDENTIAL_CACHE_MS } from '../../../src/auth/credentialCache';
import type { ManagedProcess } from '../../../src/local/childProcess';
import { waitFor } from '../../../src/local/net';
import { useTestApi } from '../../support/app';
import { startApiProcess } from '../../support/apiProcess';
import { bearer, envelope } from '../../support/http';

const REVOKED = envelope('unauthenticated', 'That API key has been revoked.', { reason: 'revoked_api_key' });

/**
 * A key revoked through the console's HTTP route while two API processes hold it in their
 * credential caches (docs/decisions/api.md, "Key and workspace lookups are cached for 5 s"):
 * the process that revoked it refuses it at once; the other, a separate OS process that learns
 * of it only from the database, within its cache's bound, and for good after.
 */
describe('a key revoked through the console, across API processes', () => {
  const { api, ws } = useTestApi();
  let other: { process: ManagedProcess; url: string };

  beforeAll(async () => {
    other = await startApiProcess(api.config, { logName: 'revocation-other-api' });
  }, 90_000);
  afterAll(async () => {
    await other?.process.stop(5_000);
  });

  const pingHere = (key: string) => request(api.server).get('/api/v1/ping').set(bearer(key));
  const pingThere = async (key: string) => {
    const res = await fetch(`${other.url}/api/v1/ping`, { headers: bearer(key) });
    return { status: res.status, body: (await res.json()) as unknown };
  };

  it('is refused at once by the revoking process, and by the other within the bound', async () => {
    const doomed = await ws.addKey(['calls:write']);
    // Both processes have read and cached it.
    expect((await pingHere(doomed.key)).status).toBe(200);
    expect((await pingThere(doomed.key)).status).toBe(200);

    const revoked = await request(api.server)
      .post(`/console/v1/workspaces/${ws.workspaceId}/keys/${doomed.keyId}/revoke`)
      .set(bearer(api.config.CONSOLE_TOKEN!))
      .send({});
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();

    const here = await pingHere(doomed.key);
    expect({ status: here.status, body: here.body }).toEqual({ status: 401, body: REVOKED });

    // The other process holds the key at most CREDENTIAL_CACHE_MS from its read; waited for with
    // room for this machine's load, not timed.
    const refused = await waitFor('the other process refusing the revoked key', async () => ((await pingThere(doomed.key)).status === 401 ? true : null), CREDENTIAL_CACHE_MS + 15_000, 100);
    expect(refused).toBe(true);
    expect(await pingThere(doomed.key)).toEqual({ status: 401, body: REVOKED });
    // The workspace's other key is untouched in both.
    expect((await pingHere(ws.key)).status).toBe(200);
    expect((await pingThere(ws.key)).status).toBe(200);
  }, 60_000);
});
