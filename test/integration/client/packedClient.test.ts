import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fromRoot } from '../../../src/local/paths';

/**
 * What an integrator installs (docs/client.md, "Adding it to a project"): the client's own
 * package, packages/client (`@orchestrator/client`, built from src/client and
 * src/webhooks/verify.ts), packed, then compiled by a consumer with strict settings that the
 * source itself is not written for (`verbatimModuleSyntax`, `exactOptionalPropertyTypes`,
 * `noPropertyAccessFromIndexSignature`, no skipLibCheck), and run, from ES modules and from
 * CommonJS. Nothing is fetched: the tarball is unpacked into the consumer's node_modules, beside
 * links to the one dependency the client has (openapi-fetch) and to @types/node.
 */

const CONSUMER_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2022'],
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    verbatimModuleSyntax: true,
    exactOptionalPropertyTypes: true,
    noPropertyAccessFromIndexSignature: true,
    noUncheckedIndexedAccess: true,
    noImplicitOverride: true,
    noImplicitReturns: true,
    skipLibCheck: false,
    types: ['node'],
    outDir: 'out',
  },
  files: ['main.ts'],
};

// The consumer's code: a typed create, a typed failure with its code and reason, a walk over a
// list route, and a webhook verified and one refused. The @ts-expect-error lines fail the compile
// if the published types were `any`.
const CONSUMER_MAIN = `
import { createHmac } from 'node:crypto';
import { createClient, OrchestratorApiError, type ClientOptions, type components } from '@orchestrator/client';
import { verify, WebhookVerificationError, type WebhookEnvelope } from '@orchestrator/client/webhooks/verify';

type ErrorEnvelope = components['schemas']['ErrorEnvelope'];
const refusal: ErrorEnvelope = {
  error: {
    code: 'failed_precondition',
    message: 'The WhatsApp session window is closed.',
    details: { reason: 'session_window_closed' },
    request_id: 'req_1',
    correlation_id: 'cor_1',
  },
};

const sent: string[] = [];
const options: ClientOptions = {
  baseUrl: 'http://orchestrator.invalid',
  apiKey: 'ork_test_key',
  retry: false,
  fetch: async (request) => {
    sent.push(request.method + ' ' + new URL(request.url).pathname);
    if (request.method === 'POST') return Response.json(refusal, { status: 412 });
    const page = new URL(request.url).searchParams.get('cursor') === null
      ? { items: [{ conversation_id: 'conv_1' }], next_cursor: 'c2' }
      : { items: [{ conversation_id: 'conv_2' }], next_cursor: null };
    return Response.json(page);
  },
};
const api = createClient(options);

export async function main(): Promise<Record<string, unknown>> {
  let failure = '';
  try {
    const message = await api.post('/api/v1/messages', { body: { to: '+919812345678', text: 'Hello' } });
    failure = 'sent ' + message.message_id;
  } catch (err) {
    if (!(err instanceof OrchestratorApiError)) throw err;
    switch (err.code) {
      case 'failed_precondition':
        failure = err.status + ' ' + err.code + ' ' + (err.reason ?? '') + ' ' + (err.requestId ?? '');
        break;
      default:
        throw err;
    }
  }
  const conversations: string[] = [];
  for await (const conversation of api.paginate('/api/v1/conversations', { params: { query: { limit: 1 } } })) {
    conversations.push(conversation.conversation_id);
  }
  // @ts-expect-error \`nickname\` is not a field of a contact.
  const wrongBody = () => api.post('/api/v1/contacts', { body: { name: 'Asha', nickname: 'Ash' } });
  // @ts-expect-error there is no such route.
  const wrongPath = () => api.get('/api/v1/nowhere');
  void wrongBody;
  void wrongPath;

  const secret = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
  const body = JSON.stringify({ id: 'evt_1', type: 'message.delivered', created_at: '2026-01-01T00:00:00Z', tenant_id: 'ws_1', data: {} });
  const timestamp = Math.floor(Date.now() / 1000);
  const mac = createHmac('sha256', Buffer.alloc(32, 7)).update('msg_1.' + timestamp + '.' + body).digest('base64');
  const headers = new Headers({ 'webhook-id': 'msg_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': 'v1,' + mac });
  const event: WebhookEnvelope = verify(body, headers, secret);
  let refused = '';
  try {
    verify(body + ' ', headers, secret);
  } catch (err) {
    if (err instanceof WebhookVerificationError) refused = err.reason;
  }
  return { failure, conversations, sent, event: event.type, refused };
}

console.log(JSON.stringify(await main()));
`;

// The same package from CommonJS: both entry points load, and the client re-exports the one verify.
const CONSUMER_CJS = `
const client = require('@orchestrator/client');
const c = client.createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'ork_test_x' });
process.stdout.write(JSON.stringify({
  methods: ['get', 'post', 'patch', 'put', 'delete', 'paginate', 'pages'].filter((m) => typeof c[m] === 'function'),
  verify: client.verify === require('@orchestrator/client/webhooks/verify').verify,
  error: new client.OrchestratorApiError(412, null).code,
  keyed: client.idempotentOperations.includes('POST /api/v1/messages'),
}));
`;

describe('the packed client package (packages/client) in a strict consumer project', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'orchestrator-consumer-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('installs from `npm pack`, compiles with zero errors under strict flags and runs', () => {
    // npm pack runs the package's "prepack", which compiles it with its .d.ts files. It runs in a
    // copy of the repository's parts it reads, so it never writes into the checkout.
    const source = join(dir, 'source');
    mkdirSync(join(source, 'packages'), { recursive: true });
    cpSync(fromRoot('src'), join(source, 'src'), { recursive: true });
    cpSync(fromRoot('packages/client'), join(source, 'packages/client'), { recursive: true, filter: (path) => !/[\\/]dist$/.test(path) });
    symlinkSync(fromRoot('node_modules'), join(source, 'node_modules'));
    execFileSync('npm', ['pack', '--offline', '--silent', '--pack-destination', dir], { cwd: join(source, 'packages/client'), stdio: 'pipe' });
    const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
    expect(tarball).toBe('orchestrator-client-0.1.0.tgz');

    const consumer = join(dir, 'consumer');
    const installed = join(consumer, 'node_modules', '@orchestrator', 'client');
    mkdirSync(installed, { recursive: true });
    mkdirSync(join(consumer, 'node_modules', '@types'));
    execFileSync('tar', ['-xzf', join(dir, tarball!), '-C', installed, '--strip-components=1']);
    // The tarball carries compiled files only: declarations, never the TypeScript source, and nothing of the service.
    const listing = execFileSync('tar', ['-tzf', join(dir, tarball!)], { encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(listing).toEqual(expect.arrayContaining(['package/dist/client/index.d.ts', 'package/dist/client/index.js', 'package/dist/webhooks/verify.d.ts', 'package/dist/webhooks/verify.js']));
    expect(listing.filter((path) => /\.ts$/.test(path) && !path.endsWith('.d.ts'))).toEqual([]);
    expect(listing.filter((path) => !/^package\/(dist\/(client|webhooks)\/|package\.json$|README\.md$)/.test(path))).toEqual([]);
    // Its one runtime dependency is openapi-fetch.
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: '@orchestrator/client', dependencies: { 'openapi-fetch': expect.any(String) } });
    expect(Object.keys(manifest.dependencies as object)).toEqual(['openapi-fetch']);
    expect([manifest.peerDependencies, manifest.optionalDependencies, manifest.bundleDependencies]).toEqual([undefined, undefined, undefined]);
    symlinkSync(fromRoot('node_modules/openapi-fetch'), join(consumer, 'node_modules', 'openapi-fetch'));
    symlinkSync(fromRoot('node_modules/@types/node'), join(consumer, 'node_modules', '@types', 'node'));

    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify(CONSUMER_TSCONFIG, null, 2));
    writeFileSync(join(consumer, 'main.ts'), CONSUMER_MAIN);

    // The project's TypeScript 7 compiles it (and emits it); TypeScript 5, the generator
    // workspace's (scripts/typegen), checks it too, as docs/client.md says 5 or later will do.
    const compilers = [fromRoot('.'), fromRoot('scripts/typegen')].map((from, i) => {
      const dir = dirname(require.resolve('typescript/package.json', { paths: [from] }));
      const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
      return { tsc: join(dir, 'bin', 'tsc'), version, args: i === 0 ? [] : ['--noEmit'] };
    });
    expect(compilers.map(({ version }) => version.split('.')[0])).toEqual(['7', '5']);
    for (const { tsc, version, args } of compilers) {
      let diagnostics = '';
      try {
        execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json', ...args], { cwd: consumer, encoding: 'utf8', stdio: 'pipe' });
      } catch (err) {
        diagnostics = String((err as { stdout?: string }).stdout) + String((err as { stderr?: string }).stderr);
      }
      expect({ version, diagnostics }).toEqual({ version, diagnostics: '' });
    }

    writeFileSync(join(consumer, 'check.cjs'), CONSUMER_CJS);
    expect(JSON.parse(execFileSync(process.execPath, ['check.cjs'], { cwd: consumer, encoding: 'utf8' }))).toEqual({
      methods: ['get', 'post', 'patch', 'put', 'delete', 'paginate', 'pages'],
      verify: true,
      error: 'failed_precondition',
      keyed: true,
    });

    const out = execFileSync(process.execPath, ['out/main.js'], { cwd: consumer, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({
      failure: '412 failed_precondition session_window_closed req_1',
      conversations: ['conv_1', 'conv_2'],
      sent: ['POST /api/v1/messages', 'GET /api/v1/conversations', 'GET /api/v1/conversations'],
      event: 'message.delivered',
      refused: 'invalid_signature',
    });
  });
});
