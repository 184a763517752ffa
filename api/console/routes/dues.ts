import { z } from 'zod';
import { cursorSecret } from '../../../src/auth/secrets';
import { changeSubscriber, closeDue, recordPayment, type PaymentResult, type SubscriberAction } from '../../../src/dues/dueActions';
import { duesSettingsSchema, readDuesSettings, writeDuesSettings } from '../../../src/dues/settings';
import { duesCollections, findDue, isOpen, type DueDoc } from '../../../src/dues/store';
import { deletePaymentLinkScript, findPaymentLinkScript, paymentLinkScript, putPaymentLinkScript } from '../../../src/providers/payments/simulatorScript';
import { ApiError } from '../../errors';
import { CursorCodec, page } from '../../pagination';
import { route, type RouteDef } from '../../route';
import { answerPayment, answerSubscriberCreate, PAYMENT_NOT_FOUND, requireDuesApp } from '../../shared/duesAnswers';
import { dueView, subscriberRecord, subscriberView } from '../../shared/dues.schema';
import { createSubscriber } from '../../../src/dues/subscribers';
import { CONSOLE_PREFIX, workspaceParams, type ConsoleDeps } from '../deps';
import {
  chaseRecord,
  consoleCreateSubscriberBody,
  consoleDueRecord,
  consoleDuesQuery,
  consolePaidBody,
  consoleSubscribersQuery,
  dueParams,
  duesSettingsParams,
  duesSettingsRecord,
  gatewayPaymentBody,
  subscriberParams,
} from './dues.schema';

const APP = `${CONSOLE_PREFIX}/workspaces/{workspace_id}/apps/dues`;
const SUBSCRIBER_NOT_FOUND = 'Subscriber not found.';

/** What the chase of a due is doing, from its record: the next step and when, or how it ended. */
const NEXT_STEP: Record<string, string> = { scheduled: 'reminder', reminded: 'followup_1', followup_1: 'followup_2', followup_2: 'decline' };
export function chaseView(d: DueDoc): z.infer<typeof chaseRecord> {
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

/**
 * The console's dues-app routes: settings (the chase's timing, template, collection and
 * receipt), subscribers (pause, resume, cancel), dues with their chase (waive, cancel, record
 * a payment, simulate a gateway payment). Installing the app is the workspace's
 * `installed_apps` (PATCH /workspaces/{id}).
 */
export function duesConsoleRoutes(deps: ConsoleDeps): RouteDef[] {
  const cursors = () => new CursorCodec(cursorSecret(deps.config));
  const actions = () => ({ db: deps.db, temporal: deps.temporal, events: deps.events });

  function paymentAnswer(result: PaymentResult) {
    const due = answerPayment(result);
    return { ...dueView(due), chase: chaseView(due) };
  }

  return [
    route({
      method: 'get',
      path: `${APP}/settings`,
      operationId: 'getDuesSettings',
      summary: 'The dues app settings: reminder offset, follow-up intervals, decline delay, send hour, template, collection and receipt.',
      params: duesSettingsParams,
      response: { status: 200, description: 'The settings.', schema: duesSettingsRecord },
      handler: async (ctx) => {
        ctx.body = await readDuesSettings(deps.db, ctx.state.workspace!._id);
      },
    }),
    route({
      method: 'put',
      path: `${APP}/settings`,
      operationId: 'putDuesSettings',
      summary: 'Replace the dues app settings (omitted keys take their defaults). Chases already running keep the times they planned.',
      params: duesSettingsParams,
      body: duesSettingsSchema,
      response: { status: 200, description: 'The settings as saved.', schema: duesSettingsRecord },
      handler: async (ctx, { body }) => {
        ctx.body = await writeDuesSettings(deps.db, ctx.state.workspace!._id, body, deps.now());
      },
    }),
    route({
      method: 'get',
      path: `${APP}/subscribers`,
      operationId: 'listDuesSubscribersConsole',
      summary: 'Subscribers, newest first; optionally one status.',
      params: duesSettingsParams,
      query: consoleSubscribersQuery,
      response: { status: 200, description: '`{items, next_cursor}`.', schema: z.object({ items: z.array(subscriberRecord), next_cursor: z.string().nullable() }) },
      handler: async (ctx, { query }) => {
        const tenantId = ctx.state.workspace!._id;
        const list = `console_dues_subscribers:${query.status ?? ''}`;
        const filter: Record<string, unknown> = { tenant_id: tenantId, ...(query.status ? { status: query.status } : {}) };
        if (query.cursor) filter._id = { $lt: String((cursors().decode(query.cursor, tenantId, list) as [unknown])[0]) };
        const docs = await duesCollections(deps.db).subscribers.find(filter).sort({ _id: -1 }).limit(query.limit).toArray();
        ctx.body = page(docs, query.limit, subscriberView, (last) => cursors().encode(tenantId, list, [last._id]));
      },
    }),
    route({
      method: 'post',
      path: `${APP}/subscribers`,
      operationId: 'createDuesSubscriberConsole',
      summary:
        'Put a customer on a recurring plan, as POST /api/v1/apps/dues/subscribers does: the same body, rules and refusals (400 `invalid_destination`, 409 `duplicate_recipient` with `subscriber_id`, 412 `not_found` until the app is installed); the next two dues are raised at once.',
      params: duesSettingsParams,
      body: consoleCreateSubscriberBody,
      requires: requireDuesApp,
      response: { status: 201, description: 'The subscriber, with its next due date and outstanding total.', schema: subscriberRecord },
      errors: ['conflict', 'failed_precondition'],
      handler: async (ctx, { body }) => {
        const workspace = ctx.state.workspace!;
        const created = await createSubscriber({ ...actions(), taskQueue: deps.config.TEMPORAL_TASK_QUEUE, logger: ctx.state.log }, workspace, body, deps.now());
        ctx.status = 201;
        ctx.body = subscriberView(answerSubscriberCreate(created, workspace));
      },
    }),
    ...(['pause', 'resume', 'cancel'] as SubscriberAction[]).map((action) =>
      route({
        method: 'post',
        path: `${APP}/subscribers/{subscriber_id}/${action}`,
        operationId: `${action}DuesSubscriber`,
        summary: {
          pause: 'Pause: no new dues are raised (those already raised are still chased). Repeating changes nothing.',
          resume: 'Resume a paused subscriber: dues are raised again from the next cycle (skipped cycles are not owed).',
          cancel: 'Cancel for good: the cycle ends and every open due is cancelled.',
        }[action],
        params: subscriberParams,
        response: { status: 200, description: 'The subscriber.', schema: subscriberRecord },
        errors: ['not_found', 'failed_precondition'],
        handler: async (ctx, { params }) => {
          const result = await changeSubscriber(actions(), ctx.state.workspace!._id, params.subscriber_id, action, deps.now());
          if (result.kind === 'not_found') throw new ApiError('not_found', SUBSCRIBER_NOT_FOUND);
          if (result.kind === 'refused') throw result.refusal;
          ctx.body = subscriberView(result.subscriber);
        },
      }),
    ),
    route({
      method: 'get',
      path: `${APP}/dues`,
      operationId: 'listDuesConsole',
      summary: "Dues with each chase's state, latest due date first; optionally one subscriber's, or one status.",
      params: duesSettingsParams,
      query: consoleDuesQuery,
      response: { status: 200, description: '`{items, next_cursor}`: each due with `chase`.', schema: z.object({ items: z.array(consoleDueRecord), next_cursor: z.string().nullable() }) },
      handler: async (ctx, { query }) => {
        const tenantId = ctx.state.workspace!._id;
        const list = `console_dues:${query.subscriber_id ?? ''}:${query.status ?? ''}`;
        const and: Record<string, unknown>[] = [{ tenant_id: tenantId }];
        if (query.subscriber_id) and.push({ subscriber_id: query.subscriber_id });
        if (query.status) and.push({ status: query.status });
        if (query.cursor) {
          const [dueDate, id] = cursors().decode(query.cursor, tenantId, list) as [string, string];
          and.push({ $or: [{ due_date: { $lt: dueDate } }, { due_date: dueDate, _id: { $lt: id } }] });
        }
        const docs = await duesCollections(deps.db).dues.find({ $and: and }).sort({ due_date: -1, _id: -1 }).limit(query.limit).toArray();
        ctx.body = page(docs, query.limit, (d) => ({ ...dueView(d), chase: chaseView(d) }), (last) => cursors().encode(tenantId, list, [last.due_date, last._id]));
      },
    }),
    ...(['waive', 'cancel'] as const).map((action) =>
      route({
        method: 'post',
        path: `${APP}/dues/{due_id}/${action}`,
        operationId: `${action}Due`,
        summary: action === 'waive' ? 'Waive an open due: the business will not collect it; its chase stops.' : 'Cancel an open due: no longer owed; its chase stops.',
        params: dueParams,
        response: { status: 200, description: 'The due with its chase.', schema: consoleDueRecord },
        errors: ['not_found', 'failed_precondition'],
        handler: async (ctx, { params }) => {
          const result = await closeDue(actions(), ctx.state.workspace!._id, params.due_id, action === 'waive' ? 'waived' : 'cancelled', deps.now());
          if (result.kind === 'not_found') throw new ApiError('not_found', PAYMENT_NOT_FOUND);
          if (result.kind === 'refused') throw result.refusal;
          ctx.body = { ...dueView(result.due), chase: chaseView(result.due) };
        },
      }),
    ),
    route({
      method: 'post',
      path: `${APP}/dues/{due_id}/paid`,
      operationId: 'markDuePaidConsole',
      summary: 'Record a payment by hand (payment.paid source manual). expected_version is optional here.',
      params: dueParams,
      body: consolePaidBody,
      response: { status: 200, description: 'The due, paid, with its chase.', schema: consoleDueRecord },
      errors: ['not_found', 'conflict', 'failed_precondition'],
      handler: async (ctx, { params, body }) => {
        const now = deps.now();
        const result = await recordPayment(
          actions(),
          ctx.state.workspace!._id,
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
        ctx.body = paymentAnswer(result);
      },
    }),
    route({
      method: 'post',
      path: `${APP}/dues/{due_id}/gateway-payment`,
      operationId: 'simulateGatewayPayment',
      summary:
        "Simulate the payment gateway's paid notice for a due (source gateway). Applied once: a repeat, or a due already settled by hand, answers the due as it is with applied false.",
      params: dueParams,
      body: gatewayPaymentBody,
      response: { status: 200, description: '`{applied, due}`.', schema: z.object({ applied: z.boolean(), due: consoleDueRecord }) },
      errors: ['not_found'],
      handler: async (ctx, { params, body }) => {
        const tenantId = ctx.state.workspace!._id;
        const now = deps.now();
        const input = { expectedVersion: null, amount: body.amount, reference: body.reference, paidAt: now, source: 'gateway' as const, markedBy: null, markedByName: null };
        const result = await recordPayment(actions(), tenantId, params.due_id, input, now);
        if (result.kind === 'not_found') throw new ApiError('not_found', PAYMENT_NOT_FOUND);
        if (result.kind === 'paid') {
          ctx.body = { applied: true, due: { ...dueView(result.due), chase: chaseView(result.due) } };
          return;
        }
        const current = (await findDue(deps.db, tenantId, params.due_id))!;
        ctx.body = { applied: false, due: { ...dueView(current), chase: chaseView(current) } };
      },
    }),
    ...paymentLinkSimulatorRoutes(deps),
  ];
}

const LINK_SCRIPT = `${CONSOLE_PREFIX}/workspaces/{workspace_id}/simulator/payment-links`;

/**
 * The simulated payment-link gateway's script for a workspace (src/providers/payments/
 * simulatorScript.ts): never paid (the default), link creation refused, or paid N minutes
 * after each link is created. One script per workspace; it applies to links created after it
 * is set (a link already planned to be paid stays planned).
 */
function paymentLinkSimulatorRoutes(deps: ConsoleDeps): RouteDef[] {
  const params = workspaceParams({});
  return [
    route({
      method: 'get',
      path: LINK_SCRIPT,
      operationId: 'getPaymentLinkScript',
      summary: "The simulated payment-link gateway's script for the workspace (the default when none is set).",
      params,
      response: { status: 200, description: 'The script.', schema: paymentLinkScript },
      errors: ['not_found'],
      handler: async (ctx) => {
        ctx.body = await findPaymentLinkScript(deps.db, ctx.state.workspace!._id);
      },
    }),
    route({
      method: 'put',
      path: LINK_SCRIPT,
      operationId: 'putPaymentLinkScript',
      summary: "Script the simulated payment-link gateway for the workspace: `create` `ok`/`fail`, `paid_after_minutes` (null: never paid). Replaces the script as a whole.",
      params,
      body: paymentLinkScript,
      response: { status: 200, description: 'The stored script, with its defaults filled in.', schema: paymentLinkScript },
      errors: ['not_found'],
      handler: async (ctx, { body: script }) => {
        await putPaymentLinkScript(deps.db, ctx.state.workspace!._id, script, deps.now());
        ctx.body = script;
      },
    }),
    route({
      method: 'delete',
      path: LINK_SCRIPT,
      operationId: 'deletePaymentLinkScript',
      summary: 'Forget the script: links are created and never paid.',
      params,
      response: { status: 204, description: 'Deleted (or there was none).' },
      errors: ['not_found'],
      handler: async (ctx) => {
        await deletePaymentLinkScript(deps.db, ctx.state.workspace!._id);
        ctx.status = 204;
      },
    }),
  ];
}
