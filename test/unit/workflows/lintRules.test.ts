import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fromRoot } from '../../../src/local/paths';

/**
 * The import rules live in .oxlintrc.json and `npm test` lints the tree with them. These
 * probes show that each rule catches what it is there for and lets the rest through: they
 * are linted with the project's own config, laid out as the tree is, in a scratch folder.
 */
const probes: Record<string, string> = {
  'workflows/probe.ts': [
    "import { readFileSync } from 'node:fs';",
    "import { MongoClient } from 'mongodb';",
    "import type { Db } from 'mongodb';",
    "import { sleep } from '@temporalio/workflow';",
    "import { x } from './time';",
    "import { y } from '../activities/calls';",
    "import { z } from '../src/calls/contracts';",
    "import { w } from '../src/calls/callStore';",
    "import { f } from '../src/temporal/failures';",
    'export const a = [readFileSync, MongoClient, sleep, x, y, z, w, f];',
    'export type B = Db;',
  ].join('\n'),
  // a feature's workflows in their folder: the same rules, one level down
  'workflows/calls/probe.ts': [
    "import { readFileSync } from 'node:fs';",
    "import { sleep } from '@temporalio/workflow';",
    "import { CALL_STEP } from './activityOptions';",
    "import { lineTime } from '../time';",
    "import { z } from '../../src/calls/contracts';",
    "import { w } from '../../src/calls/callStore';",
    "import { y } from '../../activities/calls';",
    "import { f } from '../../src/temporal/failures';",
    'export const a = [readFileSync, sleep, CALL_STEP, lineTime, z, w, y, f];',
  ].join('\n'),
  'src/calls/contracts.ts': [
    "import { defineSignal } from '@temporalio/workflow';",
    "import type { T } from './types';",
    "import { g } from '../temporal/failures';",
    "import { h } from './callStore';",
    "import type { A } from '../../../activities/calls';",
    "import type { W } from '../../../workflows/call';",
    "import { k } from '../webhooks/contracts';",
    "import type { LineEvent } from '../providers/voice/types';",
    'export const a = [defineSignal, g, h, k];',
    'export type X = T | A | W | LineEvent;',
  ].join('\n'),
  'src/webhooks/startDelivery.ts': [
    "import type { D } from '../../../workflows/deliverWebhook';",
    "import { s } from './send';",
    "import { eventsCollection } from '../events/eventStore';",
    'export type Y = D;',
    'export const b = [s, eventsCollection];',
  ].join('\n'),
  'api/v1/routes/probe.ts': [
    "import { callWorkflow } from '../../../workflows/call';",
    "import { createCallActivities } from '../../../activities/calls';",
    "import { placeCall } from '../../../src/calls/placeCall';",
    "import { MongoServerError } from 'mongodb';",
    "import type { Db } from 'mongodb';",
    'export const c = [callWorkflow, createCallActivities, placeCall, MongoServerError];',
    'export type C = Db;',
  ].join('\n'),
  // src/ below the API, the activities and the composition roots, even for a type
  'src/campaigns/probe.ts': [
    "import { ApiError } from '../../api/errors';",
    "import type { CallActivities } from '../../activities/calls';",
    "import { periodicPass } from '../worker/periodicPass';",
    "import type { Args } from '../main/runMain';",
    "import type { ActivityInterceptorsFactory } from '@temporalio/worker';",
    "import { batchWhileBusy } from '../async/batchWhileBusy';",
    "import { placeCall } from '../calls';",
    'export const d = [ApiError, periodicPass, batchWhileBusy, placeCall];',
    'export type E = CallActivities | Args | ActivityInterceptorsFactory;',
  ].join('\n'),
  // a feature reaches another only through its entry (index.ts) or its contracts, even for a type
  'src/messaging/probe.ts': [
    "import { recipientId } from '../campaigns/staging';",
    "import { CAMPAIGN_LIMITS } from '../campaigns';",
    "import type { CallDoc } from '../calls/callStore';",
    "import { callWorkflowDefinition } from '../calls/contracts';",
    "import { recordTurn } from '../conversations';",
    "import { sendWhatsAppMessage } from './sendMessage';",
    "import { findByIds } from '../db/findByIds';",
    "import { whatsAppProvider } from '../providers/whatsapp/provider';",
    'export const m = [recipientId, CAMPAIGN_LIMITS, callWorkflowDefinition, recordTurn, sendWhatsAppMessage, findByIds, whatsAppProvider];',
    'export type N = CallDoc;',
  ].join('\n'),
  'src/campaigns/voice/probe.ts': [
    "import { placeCall } from '../../calls/placeCall';",
    "import { callCollections } from '../../calls';",
    "import { recount } from '../progress';",
    "import { sendCampaignBatch } from '../whatsapp/sendBatch';",
    "import { ApiError } from '../../../api/errors';",
    'export const v = [placeCall, callCollections, recount, sendCampaignBatch, ApiError];',
  ].join('\n'),
  // the shared folders import no feature, not even a type, nor anything above src/
  'src/db/probe.ts': [
    "import { DUES_INDEXES } from '../dues/store';",
    "import type { AgentVoice } from '../calls/agentVoice';",
    "import { insertIfAbsent } from './insertIfAbsent';",
    "import { ApiError } from '../../api/errors';",
    "import type { ListDoc } from '../lists/store';",
    "import { lineCalls } from '../media';",
    "import type { Scope } from '../domain/scopes';",
    'export const g = [DUES_INDEXES, insertIfAbsent, ApiError, lineCalls];',
    'export type H = AgentVoice | ListDoc | Scope;',
  ].join('\n'),
  // providers depend on features, never the reverse: no feature imports an adapter, not even a type
  'src/calls/probe.ts': [
    "import type { VoiceProvider } from '../providers/voice';",
    "import { createCallReader } from '../providers/reader';",
    "import type { VoiceProvider as Port } from './voiceLine';",
    'export const r = createCallReader;',
    'export type P = VoiceProvider | Port;',
  ].join('\n'),
  'src/media/probe.ts': [
    "import type { LineCallDoc } from '../providers/voice/line/lineCalls';",
    "import { findLineCall } from '../calls/line/lineCalls';",
    'export const l = findLineCall;',
    'export type L = LineCallDoc;',
  ].join('\n'),
  'src/campaigns/whatsapp/probe.ts': [
    "import type { WhatsAppProvider } from '../../providers/whatsapp/provider';",
    "import type { WhatsAppProvider as Port } from '../../messaging';",
    'export type W = WhatsAppProvider | Port;',
  ].join('\n'),
  'src/temporal/probe.ts': ["import { createPaymentLinkProvider } from '../providers/payments';", 'export const t = createPaymentLinkProvider;'].join('\n'),
  // the event store is generic: the webhooks are handed to it, it imports none of them
  'src/events/probe.ts': [
    "import { createTemporalDispatcher } from '../webhooks/dispatcher';",
    "import type { WebhookDeliveryDoc } from '../webhooks/deliveries';",
    "import { deliveryWorkflowId } from '../webhooks/contracts';",
    "import { eventsCollection } from './eventStore';",
    "import { batchWhileBusy } from '../async/batchWhileBusy';",
    'export const q = [createTemporalDispatcher, deliveryWorkflowId, eventsCollection, batchWhileBusy];',
    'export type D = WebhookDeliveryDoc;',
  ].join('\n'),
  // a composition root imports everything below the workflows
  'src/worker/probe.ts': [
    "import { createCallActivities } from '../../activities/calls';",
    "import { startApi } from '../main/api';",
    "import { callWorkflow } from '../../workflows/call';",
    "import { createVoiceProvider } from '../providers/voice';",
    'export const e = [createCallActivities, startApi, callWorkflow, createVoiceProvider];',
  ].join('\n'),
  // the console reaches the public API's shared pieces in api/shared/, never its routes
  'api/console/routes/probe.ts': [
    "import { answerControl } from '../../v1/routes/campaigns';",
    "import type { V } from '../../v1/routes/campaigns.schema';",
    "import { answerCreate } from '../../shared/campaignAnswers';",
    "import { callWorkflow } from '../../../workflows/call';",
    "import { createCallActivities } from '../../../activities/calls';",
    "import { ObjectId, type Collection } from 'mongodb';",
    'export const h = [answerControl, answerCreate, callWorkflow, createCallActivities, ObjectId];',
    'export type I = V | Collection;',
  ].join('\n'),
  'activities/probe.ts': [
    "import { ApiError } from '../api/errors';",
    "import { placeCall } from '../src/calls/placeCall';",
    'export const f = [ApiError, placeCall];',
  ].join('\n'),
  // a provider adapter belongs to its feature's slice: its own feature's internals, other features' entries
  'src/providers/whatsapp/probe.ts': [
    "import { phoneDigits } from '../../conversations/store';",
    "import { applyDeliveryStatus } from '../../messaging/deliveryStatus';",
    "import { recordTurn } from '../../conversations';",
    "import type { CallDoc } from '../../calls/callStore';",
    'export const p = [phoneDigits, applyDeliveryStatus, recordTurn];',
    'export type Q = CallDoc;',
  ].join('\n'),
  'src/providers/voice/probe.ts': [
    "import { loadCall } from '../../calls/callStore';",
    "import { dueView } from '../../dues/store';",
    "import { OriginateRefused } from '../../calls';",
    'export const v = [loadCall, dueView, OriginateRefused];',
  ].join('\n'),
  // the console CLI is a client of the console HTTP API: feature entries' pure helpers, config and paths, nothing else
  'src/cli/probe.ts': [
    "import { formatZonedTime } from '../campaigns';",
    "import { campaignEta } from '../campaigns/estimate';",
    "import type { CallDoc } from '../calls/callStore';",
    "import { collections } from '../db/collections';",
    "import { parseEnv } from '../config';",
    "import { periodicPass } from '../worker/periodicPass';",
    "import { ApiError } from '../../api/errors';",
    "import { fromRoot } from '../local/paths';",
    "import { connectTemporal } from '../temporal/connection';",
    'export const k = [formatZonedTime, campaignEta, collections, parseEnv, periodicPass, ApiError, fromRoot, connectTemporal];',
    'export type K = CallDoc;',
  ].join('\n'),
  // the agents' slices keep the feature rule both ways: entries and contracts only
  'src/knowledge/probe.ts': [
    "import { createToolbox } from '../agents';",
    "import { createToolbox as box } from '../agents/toolbox';",
    "import { conversationAgentWorkflowId } from '../agents/contracts';",
    "import type { BusinessToolDoc } from '../businessTools/store';",
    'export const n = [createToolbox, box, conversationAgentWorkflowId];',
    'export type N = BusinessToolDoc;',
  ].join('\n'),
  'src/tickets/probe.ts': [
    "import { passagesOf } from '../knowledge/passages';",
    "import { RESERVED_TOOL_NAMES } from '../agents';",
    'export const t = [passagesOf, RESERVED_TOOL_NAMES];',
  ].join('\n'),
  // a circle, even one whose way back is a type
  'src/cycle/a.ts': ["import { b } from './b';", 'export const a = () => b;'].join('\n'),
  'src/cycle/b.ts': ["import type { A } from './c';", 'export const b = 1;', 'export type B = A;'].join('\n'),
  'src/cycle/c.ts': ["import { a } from './a';", 'export type A = typeof a;'].join('\n'),
};

function flagged(dir: string): string[] {
  let out: string;
  try {
    out = execFileSync(fromRoot('node_modules/.bin/oxlint'), ['-c', join(dir, '.oxlintrc.json'), '--format', 'unix', '.'], {
      // The config's own rule options (a `-D rule` on the command line would reset them:
      // `ignoreTypes` among them), run from the scratch folder; other rules' reports are
      // filtered out below.
      cwd: dir,
      encoding: 'utf8',
    });
  } catch (err) {
    out = (err as { stdout: string }).stdout;
  }
  return out
    .split('\n')
    .map((line) => /^(.+?):(\d+):\d+: .*(no-restricted-imports|no-cycle)/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => `${m[1]!.replace(/^\.\//, '')}:${m[2]}`)
    .sort();
}

describe('import rules (.oxlintrc.json)', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lint-probe-'));
    cpSync(fromRoot('.oxlintrc.json'), join(dir, '.oxlintrc.json'));
    for (const [path, source] of Object.entries(probes)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), `${source}\n`);
    }
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('flag exactly the imports that break a layer', () => {
    expect(flagged(dir)).toEqual(
      [
        // workflows: Node built-ins, drivers, activities and non-contract src modules, as values
        'workflows/probe.ts:1',
        'workflows/probe.ts:2',
        'workflows/probe.ts:6',
        'workflows/probe.ts:8',
        'workflows/calls/probe.ts:1',
        'workflows/calls/probe.ts:6',
        'workflows/calls/probe.ts:7',
        // contracts: a non-contract value import; anything from activities/ or workflows/, even a type
        'src/calls/contracts.ts:4',
        'src/calls/contracts.ts:5',
        'src/calls/contracts.ts:6',
        // ... nor a provider's type
        'src/calls/contracts.ts:8',
        // below the workflows: no import of them at all, not even a type
        'src/webhooks/startDelivery.ts:1',
        'api/v1/routes/probe.ts:1',
        'src/worker/probe.ts:3',
        // the API does not import the activities, nor the activities the API
        'api/v1/routes/probe.ts:2',
        'activities/probe.ts:1',
        // the console keeps the API's layer rules and imports no public route file, not even a type
        'api/console/routes/probe.ts:1',
        'api/console/routes/probe.ts:2',
        'api/console/routes/probe.ts:4',
        'api/console/routes/probe.ts:5',
        // the API runs no queries: the driver only as types (a route calls its feature's store)
        'api/v1/routes/probe.ts:4',
        'api/console/routes/probe.ts:6',
        // src/ imports neither the API, the activities nor a composition root, not even a type
        'src/campaigns/probe.ts:1',
        'src/campaigns/probe.ts:2',
        'src/campaigns/probe.ts:3',
        'src/campaigns/probe.ts:4',
        // a feature imports another's internals neither as a value nor as a type, from any depth
        'src/messaging/probe.ts:1',
        'src/messaging/probe.ts:3',
        'src/campaigns/voice/probe.ts:1',
        // the layer rules still hold in a feature's own folders
        'src/campaigns/voice/probe.ts:5',
        // a provider reaches another feature's internals neither as a value nor as a type
        'src/providers/whatsapp/probe.ts:1',
        'src/providers/whatsapp/probe.ts:4',
        'src/providers/voice/probe.ts:2',
        // src/db, src/domain and src/async import no feature, not even a type
        'src/db/probe.ts:1',
        'src/db/probe.ts:2',
        'src/db/probe.ts:4',
        'src/db/probe.ts:5',
        'src/db/probe.ts:6',
        // no feature imports a provider adapter, as a value or a type, from any depth; the
        // feature's own port is what it imports (the composition roots choose the adapter)
        'src/messaging/probe.ts:8',
        'src/calls/probe.ts:1',
        'src/calls/probe.ts:2',
        'src/media/probe.ts:1',
        'src/campaigns/whatsapp/probe.ts:1',
        'src/temporal/probe.ts:1',
        // the event store imports no webhook module, not even a type or the contracts
        'src/events/probe.ts:1',
        'src/events/probe.ts:2',
        'src/events/probe.ts:3',
        // the console CLI reaches no feature internals, database, Temporal, API or composition root, not even a type
        'src/cli/probe.ts:2',
        'src/cli/probe.ts:3',
        'src/cli/probe.ts:4',
        'src/cli/probe.ts:6',
        'src/cli/probe.ts:7',
        'src/cli/probe.ts:9',
        // the agents' slices: another slice's internals flagged, its entry and contracts not
        'src/knowledge/probe.ts:2',
        'src/knowledge/probe.ts:4',
        'src/tickets/probe.ts:1',
        // no circle of imports (each step of it is flagged)
        'src/cycle/a.ts:1',
        'src/cycle/b.ts:1',
        'src/cycle/c.ts:1',
      ].sort(),
    );
  });
});
