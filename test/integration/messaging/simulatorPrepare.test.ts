import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { createEventPublisher } from '../../../src/events/publisher';
import type { SendRequest } from '../../../src/messaging/whatsAppSender';
import { SimulatedWhatsAppProvider } from '../../../src/providers/whatsapp/simulator';
import { setScript, simulatorScriptSchema } from '../../../src/providers/whatsapp/simulatorScripts';
import { openTestDb, testConfig, testServers, uniqueName } from '../../support/env';

/**
 * The simulator reads a campaign batch's scripts ahead (`prepare`, issue 36 §3): one `_id $in`
 * read for the batch instead of one read a send; each script read ahead serves its
 * recipient's next send once, and a send it was not read for reads as before.
 */
describe('the WhatsApp simulator reads a batch\'s scripts ahead', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let counted: MongoClient;
  let countedDb: Db;
  const finds: string[] = [];
  const tenant = uniqueName('ws');

  beforeAll(async () => {
    const config = testConfig();
    ({ db, drop } = await openTestDb(config));
    counted = await new MongoClient(testServers.mongoUrl(), { monitorCommands: true }).connect();
    counted.on('commandStarted', (e: CommandStartedEvent) => {
      if (e.commandName === 'find' && e.command.find === 'whatsapp_simulator_scripts') finds.push(JSON.stringify(e.command.filter));
    });
    countedDb = counted.db(config.MONGODB_DB);
  });
  afterAll(async () => {
    await counted?.close();
    await drop?.();
  });

  const request = (to: string): SendRequest => ({ tenantId: tenant, senderId: 'snd_x', from: '+15550000000', to, message: { type: 'text', text: 'hello' } });

  it('answers each prepared recipient from one read, its script applied; others, and a second send, read as before', async () => {
    const refused = '+919800000002';
    const failing = '+919800000003';
    await setScript(db, tenant, refused, simulatorScriptSchema.parse({ refuse: { code: 131026, message: 'Receiver is incapable' } }), new Date());
    await setScript(db, tenant, failing, simulatorScriptSchema.parse({ fail_next: 1 }), new Date());
    const provider = new SimulatedWhatsAppProvider(countedDb, createEventPublisher(countedDb, { dispatch: async () => undefined }));
    finds.length = 0;

    await provider.prepare(tenant, ['+919800000001', refused, failing]);
    expect(finds).toHaveLength(1);
    expect(await provider.send(request('+919800000001'))).toMatchObject({ ok: true });
    expect(await provider.send(request(refused))).toMatchObject({ ok: false, retryable: false, error: { provider_code: 131026 } });
    // The temporary failure is consumed, and the retry reads the script as it now is.
    expect(await provider.send(request(failing))).toMatchObject({ ok: false, retryable: true });
    expect(finds).toHaveLength(1);
    expect(await provider.send(request(failing))).toMatchObject({ ok: true });
    expect(finds).toHaveLength(2);
    // Not prepared, or prepared and used already: a read each.
    expect(await provider.send(request('+919800000009'))).toMatchObject({ ok: true });
    expect(await provider.send(request(refused))).toMatchObject({ ok: false, retryable: false });
    expect(finds).toHaveLength(4);
  });
});
