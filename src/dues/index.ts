/** What others use of dues: the payment gateway a payment-link adapter implements (`paymentGateway.ts`). */
export { belowLinkMinimum, type PaymentLinkProvider, type PaymentLinkRequest, type PaymentLinkResult } from './paymentGateway';
