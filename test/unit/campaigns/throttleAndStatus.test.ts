import { CAMPAIGN_CATCH_UP_MS } from '../../../src/campaigns/contracts';
import { catchUpSendAt, sendSpacingMs, sendTimes } from '../../../src/campaigns/whatsapp/throttle';
import { transition } from '../../../src/campaigns/status';
import type { CampaignStatus } from '../../../src/campaigns/campaign';

describe('throttle: 1 to 600 a minute, spread evenly', () => {
  it('spaces sends 60/n seconds apart', () => {
    expect(sendSpacingMs(600)).toBe(100);
    expect(sendSpacingMs(60)).toBe(1_000);
    expect(sendSpacingMs(1)).toBe(60_000);
  });
  it('never bursts: 7 a minute are 8,571 ms apart without drift', () => {
    const times = sendTimes(0, 8, 7);
    expect(times).toEqual([0, 8571, 17143, 25714, 34286, 42857, 51429, 60000]);
  });
  it('refuses a throttle outside 1 to 600', () => {
    expect(() => sendSpacingMs(0)).toThrow(RangeError);
    expect(() => sendSpacingMs(601)).toThrow(RangeError);
    expect(() => sendSpacingMs(1.5)).toThrow(RangeError);
  });
});

describe('a batch that starts behind its plan catches up (issue 28)', () => {
  const at = (behindMs: number, offsets: number[]) => offsets.map((o) => catchUpSendAt({ startedAt: 10_000, plannedStartMs: 10_000 - behindMs }, o) - 10_000);

  it('on plan: each send at its planned offset from the batch’s start', () => {
    expect(at(0, [0, 100, 200, 4_900])).toEqual([0, 100, 200, 4_900]);
  });
  it('300 ms behind at 600 a minute: sends 50 ms apart until back on plan, then 100 ms apart, never before planned', () => {
    const offsets = Array.from({ length: 10 }, (_, n) => n * 100);
    expect(at(300, offsets)).toEqual([0, 50, 100, 150, 200, 250, 300, 400, 500, 600]);
    // On plan: each send at its planned time (start − 300 ms + offset) or later.
    expect(at(300, offsets).every((t, n) => t >= offsets[n]! - 300)).toBe(true);
  });
  it('a retried batch far behind catches up on one second only, still at twice the rate', () => {
    expect(CAMPAIGN_CATCH_UP_MS).toBe(1_000);
    expect(at(60_000, [0, 100, 1_000, 2_000, 3_000])).toEqual([0, 50, 500, 1_000, 2_000]);
  });
  it('a plan ahead of this clock (workflow time skipped forward in tests) paces from the start as before', () => {
    expect(at(-5_000, [0, 100, 200])).toEqual([0, 100, 200]);
  });
});

describe('campaign status transitions', () => {
  const all: CampaignStatus[] = ['draft', 'scheduled', 'running', 'paused', 'completed', 'failed', 'cancelled', 'archived'];
  it('launches a draft to running, or scheduled when start_at is in the future', () => {
    expect(transition('draft', { kind: 'launch', startsLater: false })).toEqual({ kind: 'moved', to: 'running', completes: false });
    expect(transition('draft', { kind: 'launch', startsLater: true })).toEqual({ kind: 'moved', to: 'scheduled', completes: false });
  });
  it('launches a paused campaign back to sending', () => {
    expect(transition('paused', { kind: 'launch', startsLater: false })).toEqual({ kind: 'moved', to: 'running', completes: false });
  });
  it.each(all.filter((s) => s !== 'draft' && s !== 'paused'))('refuses to launch a %s campaign with campaign_frozen', (status) => {
    expect(transition(status, { kind: 'launch', startsLater: false })).toEqual({
      kind: 'refused',
      reason: 'campaign_frozen',
      message: `This campaign is ${status}; only a draft or a paused campaign can be launched.`,
    });
  });
  it('pauses a sending campaign; a paused one is left as it is; a draft or a finished one is refused', () => {
    expect(transition('running', { kind: 'pause' })).toEqual({ kind: 'moved', to: 'paused', completes: false });
    expect(transition('scheduled', { kind: 'pause' })).toEqual({ kind: 'moved', to: 'paused', completes: false });
    expect(transition('paused', { kind: 'pause' })).toEqual({ kind: 'unchanged' });
    expect(transition('draft', { kind: 'pause' })).toMatchObject({ kind: 'refused', reason: 'campaign_not_launched' });
    expect(transition('completed', { kind: 'pause' })).toEqual({ kind: 'refused', reason: 'campaign_frozen', message: 'This campaign is completed; it cannot be paused.' });
  });
  it('resumes only a paused campaign', () => {
    expect(transition('paused', { kind: 'resume', startsLater: false })).toEqual({ kind: 'moved', to: 'running', completes: false });
    expect(transition('paused', { kind: 'resume', startsLater: true })).toEqual({ kind: 'moved', to: 'scheduled', completes: false });
    expect(transition('running', { kind: 'resume', startsLater: false })).toEqual({ kind: 'unchanged' });
    expect(transition('draft', { kind: 'resume', startsLater: false })).toMatchObject({ kind: 'refused', reason: 'campaign_not_launched' });
    expect(transition('cancelled', { kind: 'resume', startsLater: false })).toMatchObject({ kind: 'refused', reason: 'campaign_frozen' });
  });
  it('cancels any unfinished campaign (setting completed_at), never a finished one', () => {
    for (const status of ['draft', 'scheduled', 'running', 'paused'] as const) {
      expect(transition(status, { kind: 'cancel' })).toEqual({ kind: 'moved', to: 'cancelled', completes: true });
    }
    expect(transition('cancelled', { kind: 'cancel' })).toEqual({ kind: 'unchanged' });
    for (const status of ['completed', 'failed', 'archived'] as const) {
      expect(transition(status, { kind: 'cancel' })).toMatchObject({ kind: 'refused', reason: 'campaign_frozen' });
    }
  });
  it('moves automatically: scheduled to running, running to completed, an unfinished one to failed', () => {
    expect(transition('scheduled', { kind: 'start' })).toEqual({ kind: 'moved', to: 'running', completes: false });
    expect(transition('running', { kind: 'complete' })).toEqual({ kind: 'moved', to: 'completed', completes: true });
    expect(transition('paused', { kind: 'complete' })).toMatchObject({ kind: 'refused' });
    expect(transition('running', { kind: 'fail' })).toEqual({ kind: 'moved', to: 'failed', completes: true });
    expect(transition('draft', { kind: 'fail' })).toMatchObject({ kind: 'refused' });
  });
  it('archives only a finished campaign', () => {
    for (const status of ['completed', 'failed', 'cancelled'] as const) {
      expect(transition(status, { kind: 'archive' })).toEqual({ kind: 'moved', to: 'archived', completes: false });
    }
    expect(transition('archived', { kind: 'archive' })).toEqual({ kind: 'unchanged' });
    expect(transition('running', { kind: 'archive' })).toEqual({
      kind: 'refused',
      reason: 'campaign_not_finished',
      message: 'This campaign is running; only a finished campaign can be archived.',
    });
  });
});
