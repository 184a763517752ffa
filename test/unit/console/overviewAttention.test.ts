import { attentionOf } from '../../../api/console/overview';
import type { Overview } from '../../../api/console/routes/overview.schema';

const quiet: Overview = {
  generated_at: '2026-11-27T10:00:00.000Z',
  time_zone: 'Asia/Kolkata',
  today: { date: '2026-11-27', since: '2026-11-26T18:30:00.000Z' },
  calls: { ended: 0, answered: 0, live: 0, by_status: {}, by_outcome: {}, connected_seconds: 0, by_hour: [], recent: [] },
  messages: { total: 0, capped: false, cap: 2000, by_status: { sent: 0, delivered: 0, read: 0, failed: 0 } },
  campaigns: [],
  budget: { utc_day: '2026-11-27', resets_at: '2026-11-28T00:00:00.000Z', calls_used: 0, calls_limit: 100, minutes_reserved: 0, minutes_limit: 600, campaign_calls_count: false },
  plan: { conversations_used: 0, conversations_included: 1000, prepaid_credits: 0, voice_minutes_used: 0, voice_minutes_included: 100, voice_credits: 0 },
  attention: [],
};

describe('what the overview says needs attention', () => {
  it('nothing on a quiet day', () => {
    expect(attentionOf(quiet, false)).toEqual([]);
  });

  it('problems before warnings: a suspension, a failed campaign, a budget used up, then a paused campaign and a nearly spent allowance', () => {
    const o: Overview = {
      ...quiet,
      campaigns: [
        { campaign_id: 'cmp_paused', name: 'Renewals', channel: 'whatsapp', status: 'paused', recipients: 10, reached: 4, failed: 0 },
        { campaign_id: 'cmp_failed', name: 'Deliveries', channel: 'voice', status: 'failed', recipients: 3, reached: 3, failed: 3 },
      ],
      budget: { ...quiet.budget, calls_used: 100 },
      plan: { ...quiet.plan, conversations_used: 1000 },
    };
    expect(attentionOf(o, true).map((a) => [a.severity, a.code, a.text])).toEqual([
      ['error', 'workspace_suspended', 'The workspace is suspended: no call or message goes out until it is reinstated.'],
      ['error', 'campaign_failed', 'Campaign “Deliveries” failed.'],
      ['error', 'budget_used_up', "Today's call budget is used up: new calls are refused until 00:00 UTC."],
      ['error', 'allowance_exhausted', 'The plan has no WhatsApp conversations left: template messages are refused until credits are added.'],
      ['warning', 'campaign_paused', 'Campaign “Renewals” is paused with 6 still to reach.'],
    ]);
  });

  it('warns at 80 % of the budget, by calls or by minutes, and points unplaced calls (setup or originate errors, not a no-answer) at the calls page', () => {
    expect(attentionOf({ ...quiet, budget: { ...quiet.budget, minutes_reserved: 480 } }, false)).toEqual([
      { code: 'budget_nearly_used', severity: 'warning', text: "80 % of today's call budget is used.", about: { kind: 'workspace', id: null } },
    ]);
    expect(attentionOf({ ...quiet, budget: { ...quiet.budget, calls_used: 79 } }, false)).toEqual([]);
    const calls = { ...quiet.calls, ended: 3, by_outcome: { setup_error: 1, no_answer: 1, originate_error: 1 } };
    expect(attentionOf({ ...quiet, calls }, false)).toEqual([
      { code: 'calls_not_placed', severity: 'error', text: '2 calls today could not be placed (a setup or network error on our side, not the person).', about: { kind: 'calls', id: null } },
    ]);
  });
});
