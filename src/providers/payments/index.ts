import type { Config } from '../../config';
import type { PaymentLinkProvider } from '../../dues';
import { RazorpayPaymentLinkProvider } from './razorpay';
import { SimulatedPaymentLinkProvider } from './simulator';
import type { SimulatorScripting } from './simulatorScript';

/** PAYMENT_LINK_PROVIDER: the simulator (default; follows the console's scripts) or Razorpay Payment Links. */
export function createPaymentLinkProvider(
  config: Pick<Config, 'PAYMENT_LINK_PROVIDER' | 'RAZORPAY_BASE_URL' | 'RAZORPAY_KEY_ID' | 'RAZORPAY_KEY_SECRET'>,
  scripting: SimulatorScripting,
): PaymentLinkProvider {
  if (config.PAYMENT_LINK_PROVIDER === 'razorpay') {
    return new RazorpayPaymentLinkProvider({ baseUrl: config.RAZORPAY_BASE_URL, keyId: config.RAZORPAY_KEY_ID!, keySecret: config.RAZORPAY_KEY_SECRET!, timeoutMs: 10_000 });
  }
  return new SimulatedPaymentLinkProvider(scripting);
}
