import { zoneDate } from '../../../src/dues/cycle';
import { recordPayment } from '../../../src/dues/dueActions';
import { listDues, type DueListQuery } from '../../../src/dues/dueLists';
import { subscribersPage, type DueDoc } from '../../../src/dues/store';
import { createSubscriber, type ContactLinker } from '../../../src/dues/subscribers';
import { page, pageOf } from '../../pagination';
import { routeGroup, type RouteDef } from '../../route';
import type { PublicDeps } from '../deps';
import { answerPayment, answerSubscriberCreate, PAYMENT_NOT_FOUND, requireDuesApp } from '../../shared/duesAnswers';
import {
  createSubscriberBody,
  dueParams,
  dueRecord,
  dueView,
  listDuesQuery,
  listSubscribersQuery,
  markPaidBody,
  subscriberRecord,
  subscriberView,
  type DueScope,
} from '../../shared/dues.schema';

/**
 * The recurring-dues app (campaigns-tickets-dues §4): add a subscriber, list subscribers and
 * dues, record a payment. Reminders, templates and collection are console-only.
 */

export const DUES_APP_PREFIX = '/api/v1/apps/dues';

/** The app answers 412 where the workspace has not turned it on. */
const duesApp = routeGroup({ requires: requireDuesApp, errors: ['failed_precondition'] });
const readDues = duesApp.group({ auth: { scope: 'campaigns:read' } });
const writeDues = duesApp.group({ auth: { scope: 'campaigns:write' } });

/** Which dues each scope returns and in which order (§4); `status` wins over `scope`. "Today" is the workspace's zone date. */
function dueList(scope: DueScope | undefined, status: DueDoc['status'] | undefined, today: string): Omit<DueListQuery, 'after' | 'limit'> {
  if (status) return { status, order: -1 };
  switch (scope) {
    case 'open':
      return { open: true, order: -1 };
    case 'overdue':
      return { open: true, dueBefore: today, order: 1 };
    case 'upcoming':
      return { status: 'scheduled', dueFrom: today, order: 1 };
    case 'paid':
      return { status: 'paid', order: -1 };
    default:
      return { order: -1 };
  }
}

export interface DuesRouteOptions {
  /** Replaces how a subscriber is linked to a contact (tests make it fail). */
  linkContact?: ContactLinker;
}

export function duesRoutes(deps: Pick<PublicDeps, 'db' | 'cursors' | 'now' | 'temporal' | 'config' | 'events' | 'logger'>, options: DuesRouteOptions = {}): RouteDef[] {
  const now = deps.now ?? (() => new Date());
  // Read on use, so describing the routes (OpenAPI) needs no configuration.
  const starter = () => ({ temporal: deps.temporal, taskQueue: deps.config.TEMPORAL_TASK_QUEUE });
  return [
    writeDues.post('createDuesSubscriber', `${DUES_APP_PREFIX}/subscribers`, {
      summary:
        'Put a customer on a recurring plan: the phone in E.164, the person linked to a contact (or contact_pending), and the next two dues raised at once (payment.due_created for each). One subscriber per phone.',
      idempotent: true,
      body: createSubscriberBody,
      response: { status: 201, description: 'The subscriber, with its next due date and outstanding total.', schema: subscriberRecord },
      errors: ['conflict'],
      handler: async (ctx, { body }) => {
        const workspace = ctx.state.workspace!;
        // The key layer has checked the header; a retry under it resumes a create stopped short.
        const idempotencyKey = ctx.get('idempotency-key');
        const created = await createSubscriber(
          { db: deps.db, events: deps.events, ...starter(), linkContact: options.linkContact, logger: ctx.state.log },
          workspace,
          body,
          now(),
          idempotencyKey ? { keyId: ctx.state.apiKey!.key_id, idempotencyKey } : undefined,
        );
        return subscriberView(answerSubscriberCreate(created, workspace));
      },
    }),
    readDues.get('listDuesSubscribers', `${DUES_APP_PREFIX}/subscribers`, {
      summary: 'List subscribers, newest first.',
      query: listSubscribersQuery,
      response: { status: 200, description: 'A page of subscribers.', schema: pageOf(subscriberRecord) },
      handler: async (ctx, { query: { limit, cursor } }) => {
        const tenantId = ctx.state.workspace!._id;
        const list = 'dues_subscribers';
        const beforeId = cursor ? String((deps.cursors.decode(cursor, tenantId, list) as [unknown])[0]) : undefined;
        const docs = await subscribersPage(deps.db, tenantId, { beforeId }, limit);
        return page(docs, limit, subscriberView, (last) => deps.cursors.encode(tenantId, list, [last._id]));
      },
    }),
    readDues.get('listDues', `${DUES_APP_PREFIX}/dues`, {
      summary:
        'List dues. scope: open (latest due date first), overdue (open and due before today, oldest first), upcoming (scheduled, due today or later, soonest first), paid (latest first); none: every due, latest first. status wins over scope. Today is the workspace\'s zone date.',
      query: listDuesQuery,
      response: { status: 200, description: 'A page of dues.', schema: pageOf(dueRecord) },
      handler: async (ctx, { query: { limit, cursor, scope, status } }) => {
        const workspace = ctx.state.workspace!;
        const tenantId = workspace._id;
        const list = dueList(scope, status, zoneDate(now(), workspace.timezone));
        const listName = `dues:${status ? `status=${status}` : `scope=${scope ?? ''}`}`;
        const after = cursor ? (deps.cursors.decode(cursor, tenantId, listName) as [string, string]) : undefined;
        const docs = await listDues(deps.db, tenantId, { ...list, after, limit });
        return page(docs, limit, dueView, (last) => deps.cursors.encode(tenantId, listName, [last.due_date, last._id]));
      },
    }),
    writeDues.post('markDuePaid', `${DUES_APP_PREFIX}/dues/{due_id}/paid`, {
      summary:
        'Record a payment collected outside the payment link. expected_version is checked first (a retry of a successful call usually gets 409); a due no longer open is 412. Stops the chase and fires payment.paid.',
      params: dueParams,
      body: markPaidBody,
      notFound: { due_id: PAYMENT_NOT_FOUND },
      response: { status: 200, description: 'The due, paid, version plus 1.', schema: dueRecord },
      errors: ['not_found', 'conflict'],
      handler: async (ctx, { params, body }) => {
        const key = ctx.state.apiKey!;
        const result = await recordPayment(
          { db: deps.db, temporal: deps.temporal, events: deps.events, logger: ctx.state.log },
          ctx.state.workspace!._id,
          params.due_id,
          {
            expectedVersion: body.expected_version,
            amount: body.amount,
            reference: body.reference,
            paidAt: body.paid_at ?? now(),
            // §6: a payment recorded through the API currently reports `gateway`.
            source: 'gateway',
            markedBy: key.key_id,
            markedByName: `API key ${key.display_prefix}`,
          },
          now(),
        );
        return dueView(answerPayment(result));
      },
    }),
  ];
}
