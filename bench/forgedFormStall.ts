import { TWILIO_WEBHOOK_PATHS } from '../src/providers/voice/twilio/webhookUrls';
import { FORGED_FORM_HEADERS, hugeForm, postRaw } from '../test/support/forgedForm';
import { FORGED_FORM_TARGETS } from './targets';

/**
 * bench:api's forged-forms phase (issue 32): three forged 4 MB Twilio forms at once, two with
 * their length declared and one chunked, against an API process started with Twilio settings.
 * The figure is the API's own longest event-loop stall meanwhile, read from its /metrics
 * (prom-client's `nodejs_eventloop_lag_max_seconds`, a 10 ms-resolution histogram that each
 * scrape resets), so the bench's own sending does not count. The refusal itself (413
 * `too_large`, the bytes read, other requests answered) is asserted by
 * test/integration/api/providerWebhookLimits.test.ts; how long it stalls depends on the
 * machine's load, so it is measured here instead.
 */

export interface ForgedFormFigures {
  rounds: number;
  /** The longest stall of each round, ms. */
  stall_ms: number[];
  worst_ms: number;
  target_ms: number;
  /** Every form of every round answered 413 `too_large`. */
  refused: boolean;
  met: boolean;
}

async function loopStallMs(port: number): Promise<number> {
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const max = /^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? ([\d.e+-]+)$/m.exec(metrics);
  if (!max) throw new Error('the API exports no nodejs_eventloop_lag_max_seconds');
  return Number(max[1]) * 1000;
}

/** `rounds` rounds of the forms, one after the other, each stall read on its own. */
export async function measureForgedFormStall(port: number, rounds: number): Promise<ForgedFormFigures> {
  const body = hugeForm();
  const path = `${TWILIO_WEBHOOK_PATHS.status}?call_id=call_nothing`;
  const stalls: number[] = [];
  let refused = true;
  for (let round = 0; round < rounds; round++) {
    // Resets the histogram: what the next scrape reads is this round's.
    await loopStallMs(port);
    const answers = await Promise.all(
      Array.from({ length: FORGED_FORM_TARGETS.forms }, (_, i) => postRaw(port, path, body, FORGED_FORM_HEADERS, { chunked: i === FORGED_FORM_TARGETS.forms - 1 })),
    );
    stalls.push(Math.round((await loopStallMs(port)) * 10) / 10);
    refused &&= answers.every((a) => a.status === 413 && (a.body as { status?: string } | undefined)?.status === 'too_large');
  }
  const worst = Math.max(...stalls);
  return { rounds, stall_ms: stalls, worst_ms: worst, target_ms: FORGED_FORM_TARGETS.stallMs, refused, met: refused && worst < FORGED_FORM_TARGETS.stallMs };
}

export function formatForgedForms(f: ForgedFormFigures): string {
  return (
    `${FORGED_FORM_TARGETS.forms} forged 4 MB Twilio forms at once, ${f.rounds} rounds: API event-loop stall ${f.stall_ms.join(', ')} ms, worst ${f.worst_ms} ms ` +
    `(target < ${f.target_ms} ms)${f.refused ? '' : '; NOT every form was refused 413 too_large'} — ${f.met ? 'met' : 'NOT met'}`
  );
}
