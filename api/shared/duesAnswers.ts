import type { Middleware } from 'koa';
import { DUES_APP_DOCS_URL } from '../../src/dues/limits';
import type { PaymentResult } from '../../src/dues/dueActions';
import type { DueDoc, SubscriberDoc } from '../../src/dues/store';
import type { CreateSubscriberResult } from '../../src/dues/subscribers';
import type { RequestState } from '../context';
import { ApiError } from '../errors';
import { validationError } from '../validation';

/** What the dues app's public routes and its console routes answer alike. */

/** 412 `not_found` (deliberately not a 404) until the workspace installs the app; before any record is read. */
export const requireDuesApp: Middleware<RequestState> = async (ctx, next) => {
  if (!ctx.state.workspace!.installed_apps.includes('dues')) {
    throw new ApiError('failed_precondition', 'The dues app is not installed in this workspace; install it in the console.', {
      reason: 'not_found',
      docs: DUES_APP_DOCS_URL,
    });
  }
  await next();
};

/** A subscriber create's answer, or its refusal as the envelope (the public route and the console alike). */
export function answerSubscriberCreate(created: CreateSubscriberResult, workspace: { country: string }): SubscriberDoc {
  switch (created.kind) {
    case 'invalid_destination':
      throw new ApiError(
        'invalid_argument',
        `That phone number isn't usable: give it with its country code (+…), or as a number of the workspace's country (${workspace.country}).`,
        { reason: 'invalid_destination' },
      );
    case 'below_link_minimum':
      // A field outside its limits (§7: a validation failure, no reason); the limit is the gateway's, so say so.
      throw validationError([
        {
          loc: ['body', 'amount'],
          msg: `expected at least ${created.minimum}: this workspace collects by payment link, and a payment link must ask at least Rs ${created.minimum} (the gateway's minimum)`,
          type: 'too_small',
        },
      ]);
    case 'duplicate':
      throw new ApiError('conflict', 'A subscriber with this phone number already exists.', { reason: 'duplicate_recipient', subscriber_id: created.subscriberId });
    case 'created':
      return created.subscriber;
  }
}

/** The 404 of a due the workspace does not have (the public routes and the console alike). */
export const PAYMENT_NOT_FOUND = 'Payment not found.';

/** The due a recorded payment left, or its refusal as the envelope (the public route and the console alike). */
export function answerPayment(result: PaymentResult): DueDoc {
  switch (result.kind) {
    case 'not_found':
      throw new ApiError('not_found', PAYMENT_NOT_FOUND);
    case 'refused':
      // A refusal goes up as it is: the error handler answers it (api/refusals.ts).
      throw result.refusal;
    case 'paid':
      return result.due;
  }
}
