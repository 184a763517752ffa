import { deliveryDoc, SeededRandom } from '../../../bench/scaleData';
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
});
