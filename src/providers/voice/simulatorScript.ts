import type { Db } from 'mongodb';
import { z } from 'zod';
import { CAPTURE_KEY_PATTERN } from '../../calls/capture';
import { callCollections } from '../../calls/callStore';
import { NETWORK_OUTCOMES } from '../../calls/types';
import { replaceUpserting } from '../../db/upsert';

/**
 * How a simulated callee behaves, set per destination through the console so tests and
 * people can produce every outcome the contract lists. Every key is optional; with no
 * script the callee rings about 3 seconds, answers, answers every question sensibly and the
 * agent says goodbye after about 10 seconds.
 */
export const calleeScript = z
  .object({
    /** Picks up at all. */
    answer: z.boolean().default(true),
    /** Seconds of ringing before the callee answers or the network gives its outcome. */
    ring_seconds: z.number().min(0).max(300).default(3),
    /** What the network reports when the callee does not answer. `no_answer` rings until the call's ring time. */
    network_outcome: z.enum(NETWORK_OUTCOMES).default('no_answer'),
    /** The network refuses to place the call at all (status `failed`, outcome `originate_error`). */
    originate_error: z.boolean().default(false),
    /** Answers and says nothing (disposition `no_conversation`). */
    silent: z.boolean().default(false),
    /** Connected seconds before the line ends; by default as long as the conversation takes. */
    talk_seconds: z.number().min(0).max(7_200).nullable().default(null),
    /** Who or what ends the line; `never` keeps talking until the agent's maximum call length. */
    end: z.enum(['agent_hangup', 'caller_hangup', 'idle', 'setup_error', 'never']).default('agent_hangup'),
    /** The agent hands the caller to a team member after `after_seconds`; the human joins 2 s later. */
    handoff: z.object({ after_seconds: z.number().min(0).max(3_600) }).nullable().default(null),
    /** Seconds between turns of the conversation. */
    seconds_per_turn: z.number().min(0.05).max(60).default(1.5),
    /** The whole conversation, replacing the generated one. */
    turns: z.array(z.object({ role: z.enum(['user', 'model', 'human']), text: z.string().max(2_000) })).max(500).nullable().default(null),
    /** What the person says to each capture field, by key. */
    answers: z.record(z.string().regex(CAPTURE_KEY_PATTERN, 'a capture field key'), z.string().max(500)).default({}),
    /** Reader behaviour for calls to this destination. */
    reader: z.object({ fail_times: z.number().int().min(0).max(100).default(0), permanent: z.boolean().default(false) }).default({ fail_times: 0, permanent: false }),
  })
  .strict();

export type CalleeScript = z.infer<typeof calleeScript>;

export interface CalleeScriptDoc {
  /** `<tenant>|<destination digits>` */
  _id: string;
  tenant_id: string;
  destination: string;
  script: CalleeScript;
  updated_at: Date;
}

export function calleeScripts(db: Db) {
  return db.collection<CalleeScriptDoc>('simulator_call_scripts');
}

export function scriptId(tenantId: string, destination: string): string {
  return `${tenantId}|${destination.replace(/\D/g, '')}`;
}

export async function findCalleeScript(db: Db, tenantId: string, destination: string): Promise<CalleeScript> {
  const doc = await calleeScripts(db).findOne({ _id: scriptId(tenantId, destination) });
  return doc ? doc.script : calleeScript.parse({});
}

/** Stores a destination's script, replacing any it had. */
export async function putCalleeScript(db: Db, tenantId: string, destination: string, script: CalleeScript, now: Date): Promise<void> {
  const digits = destination.replace(/\D/g, '');
  const doc: CalleeScriptDoc = { _id: scriptId(tenantId, digits), tenant_id: tenantId, destination: digits, script, updated_at: now };
  await replaceUpserting(calleeScripts(db), { _id: doc._id }, doc);
}

/** Every script of the workspace, by destination digits. */
export async function listCalleeScripts(db: Db, tenantId: string): Promise<CalleeScriptDoc[]> {
  return calleeScripts(db).find({ tenant_id: tenantId }).sort({ _id: 1 }).toArray();
}

/** Forgets a destination's script (nothing happens when it had none). */
export async function deleteCalleeScript(db: Db, tenantId: string, destination: string): Promise<void> {
  await calleeScripts(db).deleteOne({ _id: scriptId(tenantId, destination) });
}

/** The simulated reader's failures for a call, from its destination's script. */
export function readerScriptFromCalleeScripts(db: Db) {
  return async (callId: string, known?: { tenantId: string; to: string }): Promise<{ failTimes: number; permanent: boolean } | null> => {
    const call = known ?? (await callCollections(db).calls.findOne({ _id: callId }).then((c) => (c ? { tenantId: c.tenant_id, to: c.to } : null)));
    if (!call) return null;
    const { reader } = await findCalleeScript(db, call.tenantId, call.to);
    return { failTimes: reader.fail_times, permanent: reader.permanent };
  };
}
