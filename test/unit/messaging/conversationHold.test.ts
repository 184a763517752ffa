import { HOLD_SERVE_MS, HeldConversations, giveBackToPlan, holdFromPlan, type ConversationHoldDoc } from '../../../src/messaging/conversationHold';

const plan = (used: number, included: number, credits: number) => ({
  conversations_included: included,
  conversations_used: used,
  prepaid_credits: credits,
  voice_minutes_included: 0,
  voice_minutes_used: 0,
  voice_credits: 0,
  chat_channel: true,
  phone_numbers: false,
});

describe('the hold arithmetic', () => {
  it('takes included conversations first, then prepaid credits, never more than wanted or left', () => {
    expect(holdFromPlan(plan(10, 100, 5), 50)).toEqual({ included: 50, credit: 0, plan: { conversations_used: 60, prepaid_credits: 5 } });
    expect(holdFromPlan(plan(95, 100, 20), 50)).toEqual({ included: 5, credit: 20, plan: { conversations_used: 100, prepaid_credits: 0 } });
    expect(holdFromPlan(plan(98, 100, 3), 50)).toEqual({ included: 2, credit: 3, plan: { conversations_used: 100, prepaid_credits: 0 } });
    expect(holdFromPlan(plan(100, 100, 0), 50)).toEqual({ included: 0, credit: 0, plan: { conversations_used: 100, prepaid_credits: 0 } });
    // Over-used (an operator lowered the allowance): nothing included, credits still count.
    expect(holdFromPlan(plan(120, 100, 2), 5)).toEqual({ included: 0, credit: 2, plan: { conversations_used: 120, prepaid_credits: 0 } });
  });

  it('gives back per source exactly what was held and not used', () => {
    const held = { included: 5, credit: 20 };
    expect(giveBackToPlan(plan(100, 100, 0), held, { included: 5, credit: 3 })).toEqual({ conversations_used: 100, prepaid_credits: 17 });
    expect(giveBackToPlan(plan(100, 100, 0), held, { included: 2, credit: 0 })).toEqual({ conversations_used: 97, prepaid_credits: 20 });
    expect(giveBackToPlan(plan(100, 100, 0), held, { included: 0, credit: 0 })).toEqual({ conversations_used: 95, prepaid_credits: 20 });
    // More counted than held (never expected) gives back nothing, never less than nothing.
    expect(giveBackToPlan(plan(100, 100, 0), held, { included: 9, credit: 30 })).toEqual({ conversations_used: 100, prepaid_credits: 0 });
  });

  it('a held batch takes included first, takes back a refusal into its source, and stops serving when empty or past HOLD_SERVE_MS', () => {
    let at = new Date('2026-11-23T12:00:00Z');
    const record: ConversationHoldDoc = { id: 'cmp|0|x', campaign_id: 'cmp', from: 0, positions: 5, included: 1, credit: 2, taken_at: at };
    const held = new HeldConversations(record, () => at);
    expect(held.take()).toBe('included');
    held.giveBack('included');
    expect([held.take(), held.take(), held.take(), held.take()]).toEqual(['included', 'credit', 'credit', null]);
    expect(held.used).toEqual({ included: 1, credit: 2 });
    held.giveBack('credit');
    expect(held.available()).toBe(true);
    at = new Date(record.taken_at.getTime() + HOLD_SERVE_MS);
    expect(held.available()).toBe(false);
    expect(held.take()).toBeNull();
    expect(held.used).toEqual({ included: 1, credit: 1 });
  });
});
