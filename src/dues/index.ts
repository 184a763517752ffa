/** What others use of dues: the payment gateway a payment-link adapter implements (`paymentGateway.ts`); a person's dues, their payment link and the dues app's template for it (the agents' built-in tools). */
export { belowLinkMinimum, type PaymentLinkProvider, type PaymentLinkRequest, type PaymentLinkResult } from './paymentGateway';
export { dueTemplateRequest, ensurePaymentLink, type EnsuredLink } from './chaseSteps';
export { formatRupees } from './money';
export { personDues, type PersonDues } from './personDues';
export { findDue, isOpen, type DueDoc } from './store';
export { readDuesSettings } from './settings';
