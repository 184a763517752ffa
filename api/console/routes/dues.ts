import { z } from 'zod';
import { cursorSecret } from '../../../src/auth/secrets';
import { changeSubscriber, closeDue, recordPayment, type SubscriberAction } from '../../../src/dues/dueActions';
import { duesSettingsSchema, readDuesSettings, writeDuesSettings } from '../../../src/dues/settings';
import { zoneDate } from '../../../src/dues/cycle';
import { dueStanding, subscriberStanding, whyDueExists } from '../../../src/dues/standing';
import { listDues } from '../../../src/dues/dueLists';
import { findDue, findSubscriber, isOpen, subscribersPage, type DueDoc } from '../../../src/dues/store';
import { deletePaymentLinkScript, findPaymentLinkScript, paymentLinkScript, putPaymentLinkScript } from '../../../src/providers/payments/simulatorScript';
import { ApiError } from '../../errors';
import { CursorCodec, page, pageOf } from '../../pagination';
import type { RouteDef } from '../../route';
import { answerPayment, answerSubscriberCreate, PAYMENT_NOT_FOUND, requireDuesApp } from '../../shared/duesAnswers';
import { dueView, subscriberRecord, subscriberView } from '../../shared/dues.schema';
import { createSubscriber } from '../../../src/dues/subscribers';
import { workspaceGroup, type ConsoleDeps } from '../deps';
import {
  chaseRecord,
  consoleCreateSubscriberBody,
  consoleDueRecord,
  consoleDuesQuery,
  consolePaidBody,
  consoleSubscribersQuery,
  dueParam,
  duesSettingsRecord,
  gatewayPaymentBody,
  subscriberAccountRecord,
  subscriberParam,
  SUBSCRIBER_PAGE_DUES,
} from './dues.schema';

const ws = workspaceGroup();

const SUBSCRIBER_NOT_FOUND = 'Subscriber not found.';
/** `apps/dues/subscribers/{subscriber_id}/…` and `apps/dues/dues/{due_id}/…`: one subscriber, one due. */
const subscriber = ws.group({ params: subscriberParam });
const due = ws.group({ params: dueParam });

/** What the chase of a due is doing, from its record: the next step and when, or how it ended. */
const NEXT_STEP: Record<string, string> = { scheduled: 'reminder', reminded: 'followup_1', followup_1: 'followup_2', followup_2: 'decline' };
function chaseView(d: DueDoc): z.infer<typeof chaseRecord> {
  const open = isOpen(d.status);
  return {
    workflow_id: d._id,
    state: open ? 'running' : 'ended',
    next_step: open ? NEXT_STEP[d.status]! : null,
    next_action_at: dueView(d).next_action_at,
    reminders_sent: d.reminders_sent,
    ended_as: open ? null : d.status,
    failure_reason: d.failure_reason,
  };
}

/** A due as the console shows it: the public record and its chase. */
const withChase = (d: DueDoc): z.infer<typeof consoleDueRecord> => ({ ...dueView(d), chase: chaseView(d) });

/**
 * The console's dues-app routes: settings (the chase's timing, template, collection and
 * receipt), subscribers (pause, resume, cancel), dues with their chase (waive, cancel, record
 * a payment, simulate a gateway payment). Installing the app is the workspace's
 * `installed_apps` (PATCH /workspaces/{id}).
 */
export function duesConsoleRoutes(deps: ConsoleDeps): RouteDef[] {
  const cursors = () => new CursorCodec(cursorSecret(deps.config));
  const actions = () => ({ db: deps.db, temporal: deps.temporal, events: deps.events });

  return [
    ws.get('getDuesSettings', 'apps/dues/settings', {
      summary: 'The dues app settings: reminder offset, follow-up intervals, decline delay, send hour, template, collection and receipt.',
      response: { status: 200, description: 'The settings.', schema: duesSettingsRecord },
      handler: (ctx, { tenantId }) => readDuesSettings(deps.db, tenantId),
    }),
    ws.put('putDuesSettings', 'apps/dues/settings', {
      summary: 'Replace the dues app settings (omitted keys take their defaults). Chases already running keep the times they planned.',
      body: duesSettingsSchema,
      response: { status: 200, description: 'The settings as saved.', schema: duesSettingsRecord },
      handler: (ctx, { body, tenantId }) => writeDuesSettings(deps.db, tenantId, body, deps.now()),
    }),
    ws.get('listDuesSubscribersConsole', 'apps/dues/subscribers', {
      summary: 'Subscribers, newest first; optionally one status.',
      query: consoleSubscribersQuery,
      response: { status: 200, description: '`{items, next_cursor}`.', schema: pageOf(subscriberRecord) },
      handler: async (ctx, { query, tenantId }) => {
        const list = `console_dues_subscribers:${query.status ?? ''}`;
        const beforeId = query.cursor ? String((cursors().decode(query.cursor, tenantId, list) as [unknown])[0]) : undefined;
        const docs = await subscribersPage(deps.db, tenantId, { status: query.status, beforeId }, query.limit);
        return page(docs, query.limit, subscriberView, (last) => cursors().encode(tenantId, list, [last._id]));
      },
    }),
    ws.post('createDuesSubscriberConsole', 'apps/dues/subscribers', {
      summary:
        'Put a customer on a recurring plan, as POST /api/v1/apps/dues/subscribers does: the same body, rules and refusals (400 `invalid_destination`, 409 `duplicate_recipient` with `subscriber_id`, 412 `not_found` until the app is installed); the next two dues are raised at once.',
      body: consoleCreateSubscriberBody,
      requires: requireDuesApp,
      response: { status: 201, description: 'The subscriber, with its next due date and outstanding total.', schema: subscriberRecord },
      errors: ['conflict', 'failed_precondition'],
      handler: async (ctx, { body, workspace }) => {
        const created = await createSubscriber({ ...actions(), taskQueue: deps.config.TEMPORAL_TASK_QUEUE, logger: ctx.state.log }, workspace, body, deps.now());
        return subscriberView(answerSubscriberCreate(created, workspace));
      },
    }),
    subscriber.get('getDuesSubscriberConsole', 'apps/dues/subscribers/{subscriber_id}', {
      summary:
        "One subscriber's page: the record; what is due now (open dues dated today or earlier in the workspace's zone) and what is only scheduled (raised ahead, not owed yet); each due with its standing and why it exists.",
      response: { status: 200, description: 'The subscriber, its standing and its latest dues.', schema: subscriberAccountRecord },
      handler: async (ctx, { params, tenantId, workspace }) => {
        const found = await findSubscriber(deps.db, tenantId, params.subscriber_id);
        if (!found) throw new ApiError('not_found', SUBSCRIBER_NOT_FOUND);
        const timeZone = workspace.timezone;
        const today = zoneDate(deps.now(), timeZone);
        const dues = await listDues(deps.db, tenantId, { subscriberId: found._id, order: -1, limit: SUBSCRIBER_PAGE_DUES });
        return {
          subscriber: subscriberView(found),
          time_zone: timeZone,
          today,
          ...subscriberStanding(dues, today),
          dues: dues.map((d) => ({ ...withChase(d), standing: dueStanding(d, today), why: whyDueExists(d, timeZone) })),
        };
      },
    }),
    ...(['pause', 'resume', 'cancel'] as SubscriberAction[]).map((action) =>
      subscriber.post(`${action}DuesSubscriber`, `apps/dues/subscribers/{subscriber_id}/${action}`, {
        summary: {
          pause: 'Pause: no new dues are raised (those already raised are still chased). Repeating changes nothing.',
          resume: 'Resume a paused subscriber: dues are raised again from the next cycle (skipped cycles are not owed).',
          cancel: 'Cancel for good: the cycle ends and every open due is cancelled.',
        }[action],
        response: { status: 200, description: 'The subscriber.', schema: subscriberRecord },
        errors: ['failed_precondition'],
        handler: async (ctx, { params, tenantId }) => {
          const result = await changeSubscriber(actions(), tenantId, params.subscriber_id, action, deps.now());
          if (result.kind === 'not_found') throw new ApiError('not_found', SUBSCRIBER_NOT_FOUND);
          if (result.kind === 'refused') throw result.refusal;
          return subscriberView(result.subscriber);
        },
      }),
    ),
    ws.get('listDuesConsole', 'apps/dues/dues', {
      summary: "Dues with each chase's state, latest due date first; optionally one subscriber's, or one status.",
      query: consoleDuesQuery,
      response: { status: 200, description: '`{items, next_cursor}`: each due with `chase`.', schema: pageOf(consoleDueRecord) },
      handler: async (ctx, { query, tenantId }) => {
        const list = `console_dues:${query.subscriber_id ?? ''}:${query.status ?? ''}`;
        const after = query.cursor ? (cursors().decode(query.cursor, tenantId, list) as [string, string]) : undefined;
        const docs = await listDues(deps.db, tenantId, { subscriberId: query.subscriber_id, status: query.status, order: -1, after, limit: query.limit });
        return page(docs, query.limit, withChase, (last) => cursors().encode(tenantId, list, [last.due_date, last._id]));
      },
    }),
    ...(['waive', 'cancel'] as const).map((action) =>
      due.post(`${action}Due`, `apps/dues/dues/{due_id}/${action}`, {
        summary: action === 'waive' ? 'Waive an open due: the business will not collect it; its chase stops.' : 'Cancel an open due: no longer owed; its chase stops.',
        response: { status: 200, description: 'The due with its chase.', schema: consoleDueRecord },
        errors: ['failed_precondition'],
        handler: async (ctx, { params, tenantId }) => {
          const result = await closeDue(actions(), tenantId, params.due_id, action === 'waive' ? 'waived' : 'cancelled', deps.now());
          if (result.kind === 'not_found') throw new ApiError('not_found', PAYMENT_NOT_FOUND);
          if (result.kind === 'refused') throw result.refusal;
          return withChase(result.due);
        },
      }),
    ),
    due.post('markDuePaidConsole', 'apps/dues/dues/{due_id}/paid', {
      summary: 'Record a payment by hand (payment.paid source manual). expected_version is optional here.',
      body: consolePaidBody,
      response: { status: 200, description: 'The due, paid, with its chase.', schema: consoleDueRecord },
      errors: ['conflict', 'failed_precondition'],
      handler: async (ctx, { params, body, tenantId }) => {
        const now = deps.now();
        const result = await recordPayment(
          actions(),
          tenantId,
          params.due_id,
          {
            expectedVersion: body.expected_version,
            amount: body.amount,
            reference: body.reference,
            paidAt: body.paid_at ?? now,
            source: 'manual',
            markedBy: 'console',
            markedByName: body.marked_by_name,
          },
          now,
        );
        return withChase(answerPayment(result));
      },
    }),
    due.post('simulateGatewayPayment', 'apps/dues/dues/{due_id}/gateway-payment', {
      summary:
        "Simulate the payment gateway's paid notice for a due (source gateway). Applied once: a repeat, or a due already settled by hand, answers the due as it is with applied false.",
      body: gatewayPaymentBody,
      response: { status: 200, description: '`{applied, due}`.', schema: z.object({ applied: z.boolean(), due: consoleDueRecord }) },
      handler: async (ctx, { params, body, tenantId }) => {
        const now = deps.now();
        const input = { expectedVersion: null, amount: body.amount, reference: body.reference, paidAt: now, source: 'gateway' as const, markedBy: null, markedByName: null };
        const result = await recordPayment(actions(), tenantId, params.due_id, input, now);
        if (result.kind === 'not_found') throw new ApiError('not_found', PAYMENT_NOT_FOUND);
        if (result.kind === 'paid') return { applied: true, due: withChase(result.due) };
        return { applied: false, due: withChase((await findDue(deps.db, tenantId, params.due_id))!) };
      },
    }),
    ...paymentLinkSimulatorRoutes(deps),
  ];
}

/**
 * The simulated payment-link gateway's script for a workspace (src/providers/payments/
 * simulatorScript.ts): never paid (the default), link creation refused, or paid N minutes
 * after each link is created. One script per workspace; it applies to links created after it
 * is set (a link already planned to be paid stays planned).
 */
function paymentLinkSimulatorRoutes(deps: ConsoleDeps): RouteDef[] {
  return [
    ws.get('getPaymentLinkScript', 'simulator/payment-links', {
      summary: "The simulated payment-link gateway's script for the workspace (the default when none is set).",
      response: { status: 200, description: 'The script.', schema: paymentLinkScript },
      handler: (ctx, { tenantId }) => findPaymentLinkScript(deps.db, tenantId),
    }),
    ws.put('putPaymentLinkScript', 'simulator/payment-links', {
      summary: "Script the simulated payment-link gateway for the workspace: `create` `ok`/`fail`, `paid_after_minutes` (null: never paid). Replaces the script as a whole.",
      body: paymentLinkScript,
      response: { status: 200, description: 'The stored script, with its defaults filled in.', schema: paymentLinkScript },
      handler: async (ctx, { body: script, tenantId }) => {
        await putPaymentLinkScript(deps.db, tenantId, script, deps.now());
        return script;
      },
    }),
    ws.delete('deletePaymentLinkScript', 'simulator/payment-links', {
      summary: 'Forget the script: links are created and never paid.',
      response: { status: 204, description: 'Deleted (or there was none).' },
      handler: async (ctx, { tenantId }) => {
        await deletePaymentLinkScript(deps.db, tenantId);
        ctx.status = 204;
      },
    }),
  ];
}
