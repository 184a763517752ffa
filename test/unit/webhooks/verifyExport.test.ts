import { execFileSync } from 'node:child_process';
import { fromRoot } from '../../../src/local/paths';
import { newSigningSecret, signedHeaders } from '../../../src/webhooks/signature';

/** A consumer imports the helper by the package's name and subpath (package.json "exports"); npm test builds dist first. */
describe('the exported verification helper', () => {
  it('loads as orchestrator/webhooks/verify and verifies a signed body', () => {
    const secret = newSigningSecret();
    const body = '{"id":"evt_1","type":"ping","created_at":"2025-01-01T00:00:00Z","tenant_id":"ws_1","data":{}}';
    const headers = signedHeaders([secret], 'evt_1', Math.floor(Date.now() / 1000), body);
    const script = `
      const { verify } = require('orchestrator/webhooks/verify');
      const [body, headers, secret] = JSON.parse(process.argv[1]);
      process.stdout.write(verify(body, headers, secret).id);
    `;
    const out = execFileSync(process.execPath, ['-e', script, JSON.stringify([body, headers, secret])], { cwd: fromRoot('.'), encoding: 'utf8' });
    expect(out).toBe('evt_1');
  });
});
