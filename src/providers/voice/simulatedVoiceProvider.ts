import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Collection, Db } from 'mongodb';
import { insertIfAbsent } from '../../db/insertIfAbsent';
import { signalLineEvent } from '../../calls/line/signalLine';
import type { TranscriptTurn } from '../../calls/types';
import {
  simulatedCalleeDefinition,
  simulatedCalleeWorkflowId,
  stopCalleeSignal,
  type SimulatedCallPlan,
} from '../../calls/contracts';
import { visibilityOptions } from '../../temporal/searchAttributes';
import { startWorkflow } from '../../temporal/startWorkflow';
import { conversationSeconds, simulatedTurns } from './simulatedConversation';
import { lineSchedule, SimulatedLineScheduler, type ScheduledLineEvent } from './simulatedLine';
import { findCalleeScript } from './simulatorScript';
import { OriginateRefused, type OriginateRequest, type VoiceProvider } from '../../calls';

interface SimulatedCallDoc {
  _id: string;
  tenant_id: string;
  plan: SimulatedCallPlan;
  /**
   * The plan's line events with their due times (`timers` mode). Absent for a call whose
   * events a `simulatedCallee` workflow reports (`workflow` mode, or placed by an earlier release).
   */
  line_events?: ScheduledLineEvent[];
  turns: TranscriptTurn[];
  created_at: Date;
}

/**
 * Who reports a simulated call's line events (`VOICE_SIMULATOR`): `timers` (the default) in
 * the process that placed the call, from a stored schedule (simulatedLine.ts, no workflow);
 * `workflow` a `simulatedCallee` workflow per call, whose durable timers the time-skipping
 * test server moves (the workflow tests that drive a call's ring and talk time use it).
 */
export type VoiceSimulatorMode = 'timers' | 'workflow';

export interface SimulatedVoiceOptions {
  mode?: VoiceSimulatorMode;
  /** A line event that could not be reported (its sweep tries again). */
  onLineError?: (err: unknown, callId: string) => void;
}

/**
 * The default voice provider: a deterministic simulated network and callee. Placing a call
 * plans it once from the destination's script (stored, so a retried originate plans the
 * same call); its line events reach the call workflow as `lineEvent` signals at their due
 * times, from this process's timers or from a `simulatedCallee` workflow (`mode`).
 */
export class SimulatedVoiceProvider implements VoiceProvider {
  private readonly calls: Collection<SimulatedCallDoc>;
  readonly mode: VoiceSimulatorMode;
  /** Reports line events in `timers` mode; the worker also runs its sweep. */
  readonly line: SimulatedLineScheduler;

  constructor(
    private readonly db: Db,
    private readonly temporal: Client,
    private readonly taskQueue: string,
    options: SimulatedVoiceOptions = {},
  ) {
    this.calls = db.collection<SimulatedCallDoc>('simulator_calls');
    this.mode = options.mode ?? 'timers';
    this.line = new SimulatedLineScheduler(db, (callId, event) => signalLineEvent(temporal, callId, event), options.onLineError);
  }

  async originate(request: OriginateRequest): Promise<{ providerCallId: string }> {
    const script = await findCalleeScript(this.db, request.tenantId, request.to);
    if (script.originate_error) throw new OriginateRefused('The simulated network refused to place the call.');
    const turns = simulatedTurns({
      opening: request.opening,
      purpose: request.purpose,
      detailLines: request.detailLines,
      capture: request.capture,
      script,
    });
    const plan: SimulatedCallPlan = {
      callId: request.callId,
      ringSeconds: request.direction === 'inbound' ? 0 : script.ring_seconds,
      answer: request.direction === 'inbound' || script.answer,
      networkOutcome: script.network_outcome,
      talkSeconds: script.end === 'never' ? null : script.end === 'setup_error' ? 0 : (script.talk_seconds ?? conversationSeconds(turns, script.seconds_per_turn)),
      endOutcome: script.end === 'never' ? 'max_duration' : script.end,
      handoffAfterSeconds: script.handoff?.after_seconds ?? null,
    };
    const line_events = this.mode === 'timers' ? lineSchedule(plan, new Date()) : undefined;
    const planned: SimulatedCallDoc = { _id: request.callId, tenant_id: request.tenantId, plan, ...(line_events ? { line_events } : {}), turns, created_at: new Date(request.requestedAt) };
    // Read back only when a retry finds an earlier attempt's plan (issue 28: one read less a call).
    const stored = (await insertIfAbsent(this.calls, planned)) ? planned : (await this.calls.findOne({ _id: request.callId }))!;
    // A retried originate follows what the first one stored, whichever mode stored it.
    if (stored.line_events) {
      await this.line.schedule({ tenantId: request.tenantId, callId: request.callId, steps: stored.line_events });
      return { providerCallId: simulatedCalleeWorkflowId(request.callId) };
    }
    try {
      await startWorkflow(this.temporal, simulatedCalleeDefinition, {
        workflowId: simulatedCalleeWorkflowId(request.callId),
        taskQueue: this.taskQueue,
        args: [stored.plan],
        // The simulated far end of the call: found by the call's id beside its lifecycle.
        ...visibilityOptions({ workspaceId: request.tenantId, kind: 'call', id: request.callId }),
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    return { providerCallId: simulatedCalleeWorkflowId(request.callId) };
  }

  async hangup(callId: string): Promise<void> {
    if (await this.line.hangup(callId)) return;
    // Nothing was pending: the line already went quiet, or a workflow reports its events
    // (`workflow` mode, or a call an earlier release placed), which is told to stop.
    if ((await this.calls.findOne({ _id: callId }))?.line_events) return;
    try {
      await this.temporal.workflow.getHandle(simulatedCalleeWorkflowId(callId)).signal(stopCalleeSignal);
    } catch (err) {
      // Already gone: the line is down either way.
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }

  async transcript(callId: string, connectedSeconds: number): Promise<TranscriptTurn[]> {
    const doc = await this.calls.findOne({ _id: callId });
    return (doc?.turns ?? []).filter((turn) => turn.at_seconds <= connectedSeconds);
  }
}
