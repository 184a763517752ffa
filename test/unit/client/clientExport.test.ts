import { execFileSync } from 'node:child_process';
import type { paths } from 'orchestrator/client';
import { fromRoot } from '../../../src/local/paths';

// The types resolve by the package's name too (tsc maps "exports" types in dist/ back to src/): tsc checks these lines.
type ContactBody = paths['/api/v1/contacts']['post']['requestBody']['content']['application/json'];
export const contact: ContactBody = { email: 'asha@example.com', tags: ['vip'] };
// @ts-expect-error `nickname` is not a field of the contact body.
export const wrong: ContactBody = { email: 'asha@example.com', nickname: 'Ash' };

/** An integrator imports the client by the package's name and subpath (package.json "exports"); npm test builds dist first. */
describe('the exported client', () => {
  it('loads as orchestrator/client, with the webhook verify helper beside it', () => {
    const script = `
      const client = require('orchestrator/client');
      const c = client.createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'ork_test_x' });
      process.stdout.write(JSON.stringify({
        methods: ['get', 'post', 'patch', 'put', 'delete', 'paginate', 'pages'].filter((m) => typeof c[m] === 'function'),
        verify: client.verify === require('orchestrator/webhooks/verify').verify,
        error: new client.OrchestratorApiError(412, null).code,
        keyed: client.idempotentOperations.includes('POST /api/v1/messages'),
      }));
    `;
    const out = execFileSync(process.execPath, ['-e', script], { cwd: fromRoot('.'), encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({
      methods: ['get', 'post', 'patch', 'put', 'delete', 'paginate', 'pages'],
      verify: true,
      error: 'failed_precondition',
      keyed: true,
    });
  });
});
