import { deliveryDoc, duesOfSubscriber, SeededRandom, subscriberDoc } from '../../../bench/scaleData';
import { dueDateOf } from '../../../src/dues/cycle';
import { dueIdFor } from '../../../src/dues/store';
import { deliveryWorkflowId } from '../../../src/webhooks/contracts';

/**
 * The scale seed writes what the app writes: bench:scale's figures are only the app's if its
 * documents have the app's shapes and keys.
 */
describe('the scale seed', () => {
  it("gives a webhook delivery the app's id for its event and endpoint", () => {
    const ws = { tenantId: 'ws_scale_big', agentId: 'bot_1', phoneNumber: '+919800000001', senderId: 'snd_1' };
    const random = new SeededRandom(36);
    for (let i = 0; i < 5; i++) {
      const delivery = deliveryDoc(ws, 'whk_1', 'https://hooks.example.in/ws_scale_big', new Date(Date.UTC(2026, 9, 30, 0, i)), random);
      expect(delivery._id).toBe(deliveryWorkflowId(delivery.event_id, 'whk_1'));
      expect(delivery.event_id).toMatch(/^evt_[0-9a-f]{24}$/);
    }
  });

  it("gives a subscriber the app's ids and dates for its latest three cycles: the last settled, the current open, the next scheduled", () => {
    const ws = { tenantId: 'ws_scale_big', agentId: 'bot_1', phoneNumber: '+919800000001', senderId: 'snd_1' };
    const random = new SeededRandom(36);
    const now = new Date('2026-11-01T00:00:00Z');
    const subscriber = { ...subscriberDoc(ws, 0, new Date('2026-03-15T10:00:00Z'), random), due_day: 20 };
    const dues = duesOfSubscriber(subscriber, now, random);
    // Cycle 0 on 2026-03-15, then the 20th of each month: the current one is 2026-10-20 (cycle 7).
    expect(dues.map((d) => [d._id, d.cycle_index, d.due_date, d.status === 'paid' || d.status === 'declined' ? 'settled' : d.status])).toEqual([
      [dueIdFor(subscriber._id, 6), 6, '2026-09-20', 'settled'],
      [dueIdFor(subscriber._id, 7), 7, '2026-10-20', 'reminded'],
      [dueIdFor(subscriber._id, 8), 8, '2026-11-20', 'scheduled'],
    ]);
    expect(dues.map((d) => d.due_date)).toEqual([6, 7, 8].map((n) => dueDateOf(subscriber, n)));
  });
});
