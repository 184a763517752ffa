import type { LocalActivityOptions } from '@temporalio/workflow';
import { PERMANENT_FAILURES } from '../../src/temporal/failures';
import { UNTIL_MONGODB_ANSWERS } from '../retryPolicies';

/** The chat agent's activity timeouts and retries. */

/**
 * The chat agent's reads, writes and its reply's send, as local activities (recorded as one
 * marker each, which keeps a turn near a dozen history events): retried for about a day at a
 * one-minute cap, safe because each is keyed by the turn (src/agents/turns.ts).
 */
export const AGENT_STEP: LocalActivityOptions = { startToCloseTimeout: '1 minute', retry: UNTIL_MONGODB_ANSWERS };

/**
 * The turn's first step, which waits out the burst (up to its longest, burstMaxMs) before its
 * reads: AGENT_STEP given that much more time an attempt.
 */
export function agentGatherStep(burstMaxMs: number): LocalActivityOptions {
  return { ...AGENT_STEP, startToCloseTimeout: burstMaxMs + 60_000 };
}

/**
 * The turn's first step with its first model call (src/agents/burst.ts `gatherTurnAndAsk`):
 * the burst's longest and a model call's two minutes more than AGENT_STEP's minute.
 */
export function agentGatherAndAskStep(burstMaxMs: number): LocalActivityOptions {
  return { ...AGENT_STEP, startToCloseTimeout: burstMaxMs + 180_000 };
}

/**
 * One model call or one tool run, a local activity: a slow model is given two minutes an
 * attempt, five attempts with backoff; past them the turn hands the conversation to a person
 * rather than leave the customer unanswered. A refused request (bad key, unknown model) is not
 * retried.
 */
export const AGENT_MODEL_CALL: LocalActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5, nonRetryableErrorTypes: [...PERMANENT_FAILURES, 'AgentModelPermanentError'] },
};
