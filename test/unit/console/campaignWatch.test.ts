import { estimateFinish } from '../../../src/campaigns/estimate';
import { planCampaignCommand } from '../../../src/cli/campaignCommands';
import { formatHuman } from '../../../src/cli/console';
import {
  countersOf,
  finishEstimate,
  processedOf,
  observedPerMinute,
  progressBar,
  renderPlain,
  renderWatch,
  watchCampaign,
  type WatchedCampaign,
} from '../../../src/cli/campaignWatch';

const need = (value: string | undefined, what: string) => {
  if (!value) throw new Error(`missing ${what}`);
  return value;
};

function campaign(overrides: Partial<WatchedCampaign> = {}, counters: Record<string, number> = {}): WatchedCampaign {
  return {
    campaign_id: 'cmp_1',
    name: 'Diwali offers',
    status: 'running',
    version: 2,
    recipients: 2_000,
    // A funnel: the 800 sent include the 100 delivered; 920 are no longer queued.
    counters: { sent: 800, delivered: 100, read: 0, failed: 15, skipped: 5, ...counters },
    states: { queued: 1_080, sent: 700, delivered: 100, read: 0, failed: 15, skipped: 5 },
    schedule: { start_at: null, timezone: 'UTC', throttle_per_minute: 600, send_window_start_hour: 9, send_window_end_hour: 21 },
    ...overrides,
  };
}

describe('campaigns watch: drawing', () => {
  it('draws a bar of the processed share', () => {
    expect(progressBar(920, 2_000, 20)).toBe('[#########...........]  46%');
    expect(progressBar(0, 0, 10)).toBe('[..........]   0%');
    expect(progressBar(5, 5, 10)).toBe('[##########] 100%');
  });

  it('reads the message counters first, then any other number the read model carries', () => {
    expect(countersOf(campaign({}, { calls_answered: 7 }))).toEqual([
      ['sent', 800],
      ['delivered', 100],
      ['read', 0],
      ['failed', 15],
      ['skipped', 5],
      ['calls_answered', 7],
    ]);
    // Without a `counters` object: the record's own numbers, not its version or size.
    const flat = { campaign_id: 'cmp_2', name: 'x', status: 'running', version: 3, recipients: 10, sent: 4, failed: 1, name_len: 'no' };
    expect(countersOf(flat as WatchedCampaign)).toEqual([['sent', 4], ['failed', 1]]);
  });

  it('shows a call campaign’s call progress after its counters', () => {
    const voice = { ...campaign({}, {}), calls: { dialled: 12, answered: 9, conversation: 8, completed: 6, call_backs: 1, live: 3 } };
    expect(countersOf(voice).slice(5)).toEqual([
      ['calls.dialled', 12],
      ['calls.answered', 9],
      ['calls.conversation', 8],
      ['calls.completed', 6],
      ['calls.call_backs', 1],
      ['calls.live', 3],
    ]);
  });

  it('counts progress from the states, not by adding up the funnel', () => {
    // Six sent, five of them delivered and read: six processed, not 16.
    const six = campaign({ recipients: 6, states: { queued: 0, sent: 1, delivered: 0, read: 5, failed: 0, skipped: 0 } }, { sent: 6, delivered: 5, read: 5 });
    expect(processedOf(six)).toBe(6);
    // A record without states: sent, failed and skipped each count a person once (at most the recipients).
    const flat = { campaign_id: 'cmp_2', name: 'x', status: 'running', version: 3, recipients: 10, sent: 4, delivered: 4, read: 3, failed: 1, skipped: 2 };
    expect(processedOf(flat as WatchedCampaign)).toBe(7);
    expect(processedOf({ ...flat, sent: 9, failed: 3 } as WatchedCampaign)).toBe(10);
  });

  it('estimates the last send at the throttle inside the window', () => {
    const now = new Date('2026-11-23T10:00:00Z');
    // 1,080 left at 600 a minute: the last goes 1,079 × 100 ms after now.
    expect(finishEstimate(campaign(), now, null)).toBe('10:01 today (UTC), in 1m 48s at 600/min');
    // The rate seen, when lower than the throttle, is what the estimate uses.
    expect(finishEstimate(campaign(), now, 300)).toBe('10:03 today (UTC), in 3m 36s at 300/min seen');
    // In the workspace's zone when the console's explanation names it (10:01 UTC is 15:31 in Kolkata).
    const explained = campaign({ explanation: { state: 'sending', headline: 'Sending.', details: [], fix: null, time_zone: 'Asia/Kolkata' } });
    expect(finishEstimate(explained, now, null)).toBe('15:31 today (Asia/Kolkata), in 1m 48s at 600/min');
    expect(finishEstimate(campaign({ status: 'paused' }), now, null)).toBe('paused with 1,080 to go');
    expect(finishEstimate(campaign({ status: 'completed' }), now, null)).toBe('finished (completed)');
    expect(finishEstimate(campaign({ status: 'draft' }), now, null)).toBe('not launched');
  });

  it('waits for the next opening when the window shuts first, and for a scheduled start', () => {
    // 600 fit before 21:00; the other 400 go from 09:00 the next day.
    const late = estimateFinish({ remaining: 1_000, perMinute: 600, window: { startHour: 9, endHour: 21 }, timeZone: 'UTC', from: new Date('2026-11-23T20:59:00Z') });
    expect(late!.toISOString()).toBe('2026-11-24T09:00:39.900Z');
    // In the campaign's zone: 21:00 in Kolkata is 15:30 UTC.
    const kolkata = estimateFinish({ remaining: 2, perMinute: 1, window: { startHour: 9, endHour: 21 }, timeZone: 'Asia/Kolkata', from: new Date('2026-11-23T15:29:30Z') });
    expect(kolkata!.toISOString()).toBe('2026-11-24T03:30:00.000Z');
    const scheduled = campaign({ status: 'scheduled', schedule: { ...campaign().schedule!, start_at: '2026-11-24T10:00:00Z' } });
    expect(finishEstimate(scheduled, new Date('2026-11-23T10:00:00Z'), null)).toBe('10:01 tomorrow (UTC), in 1d 0h at 600/min');
  });

  it('measures the rate over the last minute once the samples span 10 s', () => {
    expect(observedPerMinute([{ atMs: 0, processed: 0 }, { atMs: 5_000, processed: 50 }])).toBeNull();
    expect(observedPerMinute([{ atMs: 0, processed: 0 }, { atMs: 30_000, processed: 150 }])).toBe(300);
  });

  it('renders four lines for a terminal and one for a pipe', () => {
    const now = new Date('2026-11-23T10:00:00Z');
    expect(renderWatch(campaign({}, { calls_answered: 7 }), { now, observed: null, columns: 60 })).toEqual([
      'Diwali offers (cmp_1)  running  version 2',
      '[#########...........]  46%  920 of 2,000 recipients',
      'sent 800  delivered 100  read 0  failed 15  skipped 5  calls_answered 7  queued 1,080',
      'finish: 10:01 today (UTC), in 1m 48s at 600/min',
    ]);
    expect(renderPlain(campaign(), { now, observed: null })).toBe(
      '2026-11-23 10:00:00 (UTC) running 920/2000 (46%) sent=800 delivered=100 read=0 failed=15 skipped=5 finish: 10:01 today (UTC), in 1m 48s at 600/min',
    );
  });

  it('a plain line is stamped in the zone the rest of it speaks, not in UTC beside it (issue 35 §2)', () => {
    const now = new Date('2026-11-23T10:00:00Z');
    const explanation = { state: 'sending', headline: 'Sending.', details: [], fix: null, time_zone: 'Asia/Kolkata' } as unknown as WatchedCampaign['explanation'];
    const line = renderPlain(campaign({ explanation, schedule: { ...campaign().schedule!, timezone: 'Asia/Kolkata' } }), { now, observed: null });
    expect(line.startsWith('2026-11-23 15:30:00 (Asia/Kolkata) running 920/2000')).toBe(true);
    expect(line).not.toContain('Z ');
    expect(line).not.toContain('(UTC)');
  });

  it('shows what the run is doing and why under the estimate, and first in campaigns show', () => {
    const now = new Date('2026-11-23T10:00:00Z');
    const explanation = {
      state: 'held',
      headline: 'Held: the workspace is suspended for billing.',
      details: ['1,080 people still to send to; nothing goes out until this is fixed.'],
      fix: 'Pay the open invoice; the run looks again every 5 minutes.',
      time_zone: 'UTC',
    };
    const lines = renderWatch(campaign({ explanation }), { now, observed: null, columns: 60 });
    expect(lines.slice(3)).toEqual([
      'finish: 10:01 today (UTC), in 1m 48s at 600/min',
      'now: Held: the workspace is suspended for billing.',
      '     1,080 people still to send to; nothing goes out until this is fixed.',
      'fix: Pay the open invoice; the run looks again every 5 minutes.',
    ]);
    expect(renderPlain(campaign({ explanation }), { now, observed: null })).toMatch(/ \| Held: the workspace is suspended for billing\.$/);
    const show = planCampaignCommand(['campaigns', 'show', 'ws_1', 'cmp_1'], {}, need)!;
    const text = show.format!({ campaign_id: 'cmp_1', status: 'running', explanation }, (record) => Object.keys(record).join(','));
    expect(text).toBe(
      [
        'now: Held: the workspace is suspended for billing.',
        '     1,080 people still to send to; nothing goes out until this is fixed.',
        'fix: Pay the open invoice; the run looks again every 5 minutes.',
        '',
        'campaign_id,status',
      ].join('\n'),
    );
  });

  it('watches until the campaign ends: redrawn in place on a terminal, a line per change otherwise', async () => {
    const readings = [
      campaign({ recipients: 4, states: { queued: 3, sent: 1 } }, { sent: 1, delivered: 0, failed: 0, skipped: 0 }),
      campaign({ recipients: 4, states: { queued: 3, sent: 1 } }, { sent: 1, delivered: 0, failed: 0, skipped: 0 }),
      campaign({ recipients: 4, states: { queued: 1, sent: 3 } }, { sent: 3, delivered: 0, failed: 0, skipped: 0 }),
      campaign({ recipients: 4, status: 'completed', states: { queued: 0, sent: 4 } }, { sent: 4, delivered: 0, failed: 0, skipped: 0 }),
    ];
    const run = async (tty: boolean) => {
      let i = 0;
      const out: string[] = [];
      const last = await watchCampaign({
        read: async () => readings[i++]!,
        write: (text) => out.push(text),
        tty,
        columns: () => 80,
        intervalMs: 1,
        now: () => new Date('2026-11-23T10:00:00Z'),
        sleep: async () => undefined,
      });
      return { out, last, reads: i };
    };
    const plain = await run(false);
    expect(plain.reads).toBe(4);
    expect(plain.last.status).toBe('completed');
    expect(plain.out.map((l) => l.split(' ').slice(3, 5).join(' '))).toEqual(['running 1/4', 'running 3/4', 'completed 4/4']);
    const tty = await run(true);
    expect(tty.out).toHaveLength(4);
    expect(tty.out[0]!.startsWith('Diwali offers')).toBe(true);
    expect(tty.out[1]!.startsWith('\x1b[4A\x1b[J')).toBe(true);
    expect(tty.out[3]).toContain('finish: finished (completed)');
  });
});

describe('campaigns commands', () => {
  it('plans one console call per command', () => {
    expect(planCampaignCommand(['campaigns', 'list', 'ws_1'], { status: 'running', 'include-archived': true }, need)).toMatchObject({
      method: 'GET',
      path: '/workspaces/ws_1/campaigns?status=running&include_archived=true',
    });
    expect(planCampaignCommand(['campaigns', 'launch', 'ws_1', 'cmp_2'], { 'expected-version': '1', 'confirm-recipients': '20' }, need)).toEqual({
      method: 'POST',
      path: '/workspaces/ws_1/campaigns/cmp_2/launch',
      body: { expected_version: 1, confirm_recipients: 20 },
    });
    expect(planCampaignCommand(['campaigns', 'cancel', 'ws_1', 'cmp_2'], { 'expected-version': '4' }, need)).toEqual({
      method: 'POST',
      path: '/workspaces/ws_1/campaigns/cmp_2/cancel',
      body: { expected_version: 4 },
    });
    expect(planCampaignCommand(['campaigns', 'archive', 'ws_1', 'cmp_2'], {}, need)).toEqual({ method: 'POST', path: '/workspaces/ws_1/campaigns/cmp_2/archive' });
    expect(planCampaignCommand(['campaigns', 'settings', 'ws_1'], {}, need)).toEqual({ method: 'GET', path: '/workspaces/ws_1/campaign-settings' });
    expect(planCampaignCommand(['campaigns', 'settings', 'ws_1'], { 'throttle-per-minute': '120', timezone: 'none' }, need)).toEqual({
      method: 'PATCH',
      path: '/workspaces/ws_1/campaign-settings',
      body: { throttle_per_minute: 120, timezone: null },
    });
    expect(planCampaignCommand(['webhooks', 'list', 'ws_1'], {}, need)).toBeNull();
  });

  it('campaigns recipients names each person: contact id (or the uploaded list row) and name, not `contact_id -`', () => {
    const plan = planCampaignCommand(['campaigns', 'recipients', 'ws_1', 'cmp_2'], {}, need)!;
    const body = {
      items: [
        { position: 0, contact_id: 'cnt_1', name: 'Asha Rao', to: '+919811100001', state: 'sent', reason: null, state_at: '2026-11-27 13:13:05' },
        { position: 1, contact_id: null, row: 3, name: 'Ravi Kumar', to: '+919811100002', state: 'skipped', reason: 'suppressed', state_at: '2026-11-27 13:13:05' },
      ],
      next_cursor: null,
    };
    expect(plan.format!(body, (record) => formatHuman(record, plan.columns)).split('\n')).toEqual([
      'position  contact_id  name        to             state    reason      state_at',
      '0         cnt_1       Asha Rao    +919811100001  sent     -           2026-11-27 13:13:05',
      '1         row 3       Ravi Kumar  +919811100002  skipped  suppressed  2026-11-27 13:13:05',
    ]);
  });

  it('refuses a missing version, a mistyped flag and a value that is not a number', () => {
    expect(() => planCampaignCommand(['campaigns', 'pause', 'ws_1', 'cmp_2'], {}, need)).toThrow(
      'campaigns pause needs --expected-version (the version shown by campaigns show)',
    );
    expect(() => planCampaignCommand(['campaigns', 'pause', 'ws_1', 'cmp_2'], { version: '2' }, need)).toThrow('unknown flag for campaigns pause: --version');
    expect(() => planCampaignCommand(['campaigns', 'launch', 'ws_1', 'cmp_2'], { 'expected-version': 'two' }, need)).toThrow(
      '--expected-version takes a whole number, not "two"',
    );
  });

  it('campaigns create and show print each counter once, and the people still queued after the recipients (issue 35 §10)', () => {
    const created = planCampaignCommand(['campaigns', 'create', 'ws_1'], { name: 'Sale', tags: 'vip', template: 'order_update' }, need)!;
    const record = {
      campaign_id: 'cmp_1',
      status: 'draft',
      recipients: 3,
      sent: 1,
      delivered: 0,
      read: 0,
      failed: 0,
      skipped: 0,
      counters: { sent: 1, delivered: 0, read: 0, failed: 0, skipped: 0 },
      states: { queued: 2, sent: 1, delivered: 0, read: 0, failed: 0, skipped: 0 },
    };
    expect(created.format!(record, (r) => Object.entries(r).map(([k, v]) => `${k} ${String(v)}`).join('\n'))).toBe(
      ['campaign_id cmp_1', 'status draft', 'recipients 3', 'queued 2', 'sent 1', 'delivered 0', 'read 0', 'failed 0', 'skipped 0'].join('\n'),
    );
  });
});
