import { planCall } from '../../../src/cli/console';

describe('console CLI: WhatsApp commands', () => {
  it('scripts, lists and clears a simulator recipient', () => {
    expect(
      planCall(['whatsapp-sim', 'set', 'ws_1', '+919800000001'], {
        outcome: 'failed',
        'fail-next': '2',
        'fail-kind': 'server',
        'refuse.code': '131026',
        'refuse.message': 'Message undeliverable',
        'delays-ms.delivered': '500',
      }),
    ).toEqual({
      method: 'PUT',
      path: '/workspaces/ws_1/simulator/whatsapp/%2B919800000001',
      body: { outcome: 'failed', fail_next: 2, fail_kind: 'server', refuse: { code: 131026, message: 'Message undeliverable' }, delays_ms: { delivered: 500 } },
    });
    expect(planCall(['whatsapp-sim', 'list', 'ws_1'], {})).toMatchObject({ method: 'GET', path: '/workspaces/ws_1/simulator/whatsapp' });
    expect(planCall(['whatsapp-sim', 'clear', 'ws_1', '+919800000001'], {})).toEqual({
      method: 'DELETE',
      path: '/workspaces/ws_1/simulator/whatsapp/%2B919800000001',
    });
  });

  it('injects an inbound message and an echo, keeping texts and numbers as strings', () => {
    expect(
      planCall(['whatsapp', 'inbound', 'ws_1'], { from: '919800000001', text: '42', name: 'Asha', 'referral.source-id': '12345', 'referral.source-type': 'ad' }),
    ).toEqual({
      method: 'POST',
      path: '/workspaces/ws_1/whatsapp/inbound',
      body: { from: '919800000001', text: '42', name: 'Asha', referral: { source_id: '12345', source_type: 'ad' } },
    });
    expect(planCall(['whatsapp', 'echo', 'ws_1'], { to: '+919800000001', text: 'ok', action: 'sent' })).toEqual({
      method: 'POST',
      path: '/workspaces/ws_1/whatsapp/echo',
      body: { to: '+919800000001', text: 'ok', action: 'sent' },
    });
  });

  it('adds a turn to a conversation', () => {
    expect(planCall(['conversations', 'add-turn', 'ws_1', 'con_1'], { role: 'model', text: 'Hi', kind: 'trail', 'turn-id': '7' })).toEqual({
      method: 'POST',
      path: '/workspaces/ws_1/conversations/con_1/turns',
      body: { role: 'model', text: 'Hi', kind: 'trail', turn_id: '7' },
    });
  });
});
