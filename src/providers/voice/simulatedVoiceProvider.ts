import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Collection, Db } from 'mongodb';
import { insertIfAbsent } from '../../db/insertIfAbsent';
import type { TranscriptTurn } from '../../calls/types';
import {
  simulatedCalleeDefinition,
  simulatedCalleeWorkflowId,
  stopCalleeSignal,
  type SimulatedCallPlan,
} from '../../calls/contracts';
import { startWorkflow } from '../../temporal/startWorkflow';
import { conversationSeconds, simulatedTurns } from './simulatedConversation';
import { findCalleeScript } from './simulatorScript';
import { OriginateRefused, type OriginateRequest, type VoiceProvider } from './types';

interface SimulatedCallDoc {
  _id: string;
  tenant_id: string;
  plan: SimulatedCallPlan;
  turns: TranscriptTurn[];
  created_at: Date;
}

/**
 * The default voice provider: a deterministic simulated network and callee. Placing a call
 * plans it once from the destination's script (stored, so a retried originate plans the
 * same call) and starts the `simulatedCallee` workflow, which reports the line's events to
 * the call workflow on real timers.
 */
export class SimulatedVoiceProvider implements VoiceProvider {
  private readonly calls: Collection<SimulatedCallDoc>;

  constructor(
    private readonly db: Db,
    private readonly temporal: Client,
    private readonly taskQueue: string,
  ) {
    this.calls = db.collection<SimulatedCallDoc>('simulator_calls');
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
    await insertIfAbsent(this.calls, { _id: request.callId, tenant_id: request.tenantId, plan, turns, created_at: new Date(request.requestedAt) });
    const stored = await this.calls.findOne({ _id: request.callId });
    try {
      await startWorkflow(this.temporal, simulatedCalleeDefinition, {
        workflowId: simulatedCalleeWorkflowId(request.callId),
        taskQueue: this.taskQueue,
        args: [stored!.plan],
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    return { providerCallId: simulatedCalleeWorkflowId(request.callId) };
  }

  async hangup(callId: string): Promise<void> {
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
