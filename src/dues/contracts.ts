/**
 * What the API, the activities and the dues workflows share: the chase of one due (workflow
 * id = `due_id`, so the engine refuses a second chase of the same due) and the cycle of one
 * subscriber (workflow id = `subscriber_id`), their inputs, signals, query and the chase's
 * activity answers.
 *
 * Imported by workflow code: the SDK's define* helpers and types only, no I/O.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { defineWorkflow } from '../temporal/workflowDefinition';

/** The chase's steps in order; `decline` ends it unpaid. */
export const CHASE_STEPS = ['reminder', 'followup_1', 'followup_2', 'decline'] as const;
export type ChaseStep = (typeof CHASE_STEPS)[number];

export interface DueChaseInput {
  tenantId: string;
  dueId: string;
}

/** The chase as planned when it started: each step's time (epoch ms, window hold applied; src/dues/chasePlan.ts). */
export interface ChasePlan {
  /** False when the due was no longer open when the chase began. */
  open: boolean;
  stepsAtMs: Record<ChaseStep, number>;
}

export interface DueChaseState {
  /** The next step to take, or null once the chase has ended. */
  next: ChaseStep | null;
  /** When the next step goes (after the window hold), epoch ms. */
  nextAtMs: number | null;
  /** Why the chase ended: a step's own end (`declined`) or the due leaving the open states. */
  ended: 'declined' | 'stopped' | null;
}

export type DueChase = (input: DueChaseInput) => Promise<DueChaseState>;
export const dueChaseDefinition = defineWorkflow<DueChase>('dueChase');

export const dueChaseWorkflowId = (dueId: string): string => dueId;

/**
 * The due left the open states (paid, waived, cancelled): the chase ends at once. A signal,
 * fire-and-forget: the due's record is the truth, and every step reads it before it speaks.
 */
export const stopChaseSignal = defineSignal('stopChase');
export const dueChaseStateQuery = defineQuery<DueChaseState>('dueChaseState');

export type ChaseStepResult =
  /** The step ran (a message sent or refused, or the due declined). */
  | { kind: 'done'; sent: boolean }
  /** The due is no longer open: nothing was sent. */
  | { kind: 'stopped' }
  /** The step's time fell outside the 09:00–21:00 window (a late timer): nothing sent; try again at `opensAtMs`. */
  | { kind: 'closed'; opensAtMs: number };

export interface ChaseStepInput {
  tenantId: string;
  dueId: string;
  step: ChaseStep;
  /** Workflow time of the step (ISO), so a retry records the same instant. */
  at: string;
  /** When the following step is planned (ISO), shown as `next_action_at`; null after the last. */
  nextActionAt: string | null;
}

export interface DuesCycleInput {
  tenantId: string;
  subscriberId: string;
  /** The cycle index the next raise creates. */
  nextIndex: number;
}

export interface DuesCycleState {
  nextIndex: number;
  /** When the next due is raised (epoch ms), or null once the subscription ended. */
  raiseAtMs: number | null;
}

export type DuesCycle = (input: DuesCycleInput) => Promise<DuesCycleState>;
export const duesCycleDefinition = defineWorkflow<DuesCycle>('duesCycle');

export const duesCycleWorkflowId = (subscriberId: string): string => subscriberId;

/** The subscription was cancelled: the cycle ends without waiting for its next date. */
export const endCycleSignal = defineSignal('endCycle');
export const duesCycleStateQuery = defineQuery<DuesCycleState>('duesCycleState');

export type CycleStepResult =
  /** Due `index` raised (or skipped while paused); the next is raised at `nextRaiseAtMs`. */
  | { kind: 'raised' | 'skipped'; nextRaiseAtMs: number }
  /** The subscriber is cancelled (or gone): no more dues. */
  | { kind: 'ended' };

/**
 * A due `index` is raised at 00:00 (the workspace's zone) on the day after the due date two
 * cycles before it, so a subscriber always has two dues falling today or later (the two raised
 * at creation, then one more each time a due date has passed; workflowStarts.ts raiseAtMs).
 */
export const RAISE_AHEAD_CYCLES = 2;

/** The simulated gateway pays one link after its scripted delay (src/providers/payments/simulatorScript.ts). */
export interface SimulatedLinkPaymentInput {
  tenantId: string;
  dueId: string;
  linkId: string;
  afterMs: number;
}

export type SimulatedLinkPayment = (input: SimulatedLinkPaymentInput) => Promise<void>;
export const simulatedLinkPaymentDefinition = defineWorkflow<SimulatedLinkPayment>('simulatedLinkPayment');

/** One payment per link: a retried link creation cannot pay twice. */
export const simulatedLinkPaymentWorkflowId = (linkId: string): string => `simulated-link-payment-${linkId}`;
