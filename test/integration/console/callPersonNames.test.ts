import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { callPersonNames } from '../../../api/console/personNames';
import { newCallDoc, type CallDoc } from '../../../src/calls/callStore';
import { matchOrCreateContact } from '../../../src/contacts/contacts';
import { recordTurn } from '../../../src/conversations';
import { collections } from '../../../src/db/collections';
import { newId } from '../../../src/domain/ids';
import { createEventPublisher } from '../../../src/events/publisher';
import { openTestDb, testConfig } from '../../support/env';
import { createTestWorkspace } from '../../support/workspaces';

/**
 * The console's calls say who each was with (api/console/personNames.ts): at a year's scale a
 * page of 25 calls read two or three documents per number one command at a time (52 commands,
 * issue 36 bench:scale). A page's numbers are now read together: the same names, in at most
 * three `_id: {$in}` reads whatever the page's size.
 */
describe('the names on a page of calls', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let monitored: MongoClient;
  const config = testConfig();

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(config));
    monitored = await new MongoClient(config.MONGODB_URL, { monitorCommands: true }).connect();
  });

  afterAll(async () => {
    await monitored?.close();
    await drop?.();
  });

  it('names 30 numbers from the call, the contact, else WhatsApp, in three reads by _id', async () => {
    const own = await createTestWorkspace(db);
    const other = await createTestWorkspace(db);
    const workspace = (await collections(db).workspaces.findOne({ _id: own.workspaceId }))!;
    const otherWorkspace = (await collections(db).workspaces.findOne({ _id: other.workspaceId }))!;
    const deps = { db, events: createEventPublisher(db, { dispatch: async () => undefined }) };
    const number = (i: number) => `+9198111${String(i).padStart(5, '0')}`;
    const expected: (string | null)[] = [];
    const calls: CallDoc[] = [];
    for (let i = 0; i < 30; i++) {
      const at = new Date(Date.parse('2026-06-01T00:00:00Z') + i * 60_000);
      let name: string | null = null;
      let metadata: Record<string, string> = {};
      if (i % 5 === 0) {
        await matchOrCreateContact(db, workspace, { name: `Contact ${i}`, phone: `0${number(i).slice(3)}` }, at);
        // The WhatsApp name is not asked for when the contact has one.
        await recordTurn(deps, { tenantId: own.workspaceId, channel: 'whatsapp', customer: { phone: number(i), name: `Chat ${i}` }, role: 'user', text: 'hi', at, dedupeKey: `c:${i}` });
        name = `Contact ${i}`;
      } else if (i % 5 === 1) {
        // A contact without a name: the WhatsApp name.
        await matchOrCreateContact(db, workspace, { phone: number(i) }, at);
        await recordTurn(deps, { tenantId: own.workspaceId, channel: 'whatsapp', customer: { phone: number(i), name: `Chat ${i}` }, role: 'user', text: 'hi', at, dedupeKey: `c:${i}` });
        name = `Chat ${i}`;
      } else if (i % 5 === 2) {
        await recordTurn(deps, { tenantId: own.workspaceId, channel: 'whatsapp', customer: { phone: number(i), display_name: `Shown ${i}` }, role: 'user', text: 'hi', at, dedupeKey: `c:${i}` });
        name = `Shown ${i}`;
      } else if (i % 5 === 3) {
        metadata = { person_name: `Recipient ${i}` };
        name = `Recipient ${i}`;
      } else {
        // Known only to another workspace: nobody here.
        await matchOrCreateContact(db, otherWorkspace, { name: `Elsewhere ${i}`, phone: number(i) }, at);
      }
      expected.push(name);
      calls.push(
        newCallDoc({
          _id: newId('call', at),
          tenant_id: own.workspaceId,
          direction: 'outbound',
          status: 'ringing',
          to: number(i),
          from_number: '918000000001',
          agent_id: own.agentId,
          requested_agent_id: null,
          deployment_id: 'dep_1',
          ring_seconds: 30,
          max_call_seconds: 300,
          recording: false,
          created_at: at,
          metadata,
        }),
      );
    }
    // Two calls to one number: one name, read once.
    calls.push({ ...calls[0]!, _id: newId('call', new Date()) });
    expected.push(expected[0]!);

    const started: CommandStartedEvent[] = [];
    monitored.on('commandStarted', (event) => started.push(event));
    const names = await callPersonNames(monitored.db(db.databaseName), own.workspaceId, workspace.country, calls);
    monitored.removeAllListeners('commandStarted');

    expect(calls.map((c) => names.get(c._id))).toEqual(expected);
    const reads = started.filter((e) => e.commandName === 'find');
    expect(started.map((e) => e.commandName)).toEqual(['find', 'find', 'find']);
    expect(reads.map((e) => [e.command.find, Object.keys(e.command.filter), Object.keys(e.command.filter._id)])).toEqual([
      ['contact_identities', ['_id'], ['$in']],
      ['contacts', ['_id'], ['$in']],
      ['conversations', ['_id'], ['$in']],
    ]);
  });
});
