import { parseCommandLine, planCall } from '../../../src/cli/console';

const plan = (argv: string[]) => {
  const { positionals, values } = parseCommandLine(argv);
  return planCall(positionals, values);
};

describe('the console CLI webhook commands', () => {
  it('creates an endpoint with its types as a list, its URL and description as text', () => {
    expect(plan(['webhooks', 'create', 'ws_1', '--url', 'https://example.com/hook?x=1', '--event-types', 'call.ended, ticket.created', '--description', '2024', '--enabled', 'false'])).toEqual({
      method: 'POST',
      path: '/workspaces/ws_1/webhooks',
      body: { url: 'https://example.com/hook?x=1', event_types: ['call.ended', 'ticket.created'], description: '2024', enabled: false },
    });
  });

  it('ticks every type with --event-types all or an empty value', () => {
    expect(plan(['webhooks', 'update', 'ws_1', 'whk_1', '--event-types', 'all']).body).toEqual({ event_types: [] });
    expect(plan(['webhooks', 'update', 'ws_1', 'whk_1', '--event-types=']).body).toEqual({ event_types: [] });
    expect(plan(['webhooks', 'update', 'ws_1', 'whk_1', '--description', 'none', '--enabled']).body).toEqual({ description: null, enabled: true });
  });

  it('plans the actions, delivery listing with filters, and replay', () => {
    expect(plan(['event-types', 'list'])).toEqual({ method: 'GET', path: '/event-types' });
    expect(plan(['webhooks', 'list', 'ws_1'])).toMatchObject({ method: 'GET', path: '/workspaces/ws_1/webhooks' });
    expect(plan(['webhooks', 'show', 'ws_1', 'whk_1'])).toEqual({ method: 'GET', path: '/workspaces/ws_1/webhooks/whk_1' });
    expect(plan(['webhooks', 'rotate-secret', 'ws_1', 'whk_1'])).toEqual({ method: 'POST', path: '/workspaces/ws_1/webhooks/whk_1/rotate-secret' });
    expect(plan(['webhooks', 'delete', 'ws_1', 'whk_1'])).toEqual({ method: 'DELETE', path: '/workspaces/ws_1/webhooks/whk_1' });
    expect(plan(['webhooks', 'disable', 'ws_1', 'whk_1'])).toEqual({ method: 'PATCH', path: '/workspaces/ws_1/webhooks/whk_1', body: { enabled: false } });
    expect(plan(['webhooks', 'enable', 'ws_1', 'whk_1'])).toEqual({ method: 'PATCH', path: '/workspaces/ws_1/webhooks/whk_1', body: { enabled: true } });
    expect(plan(['webhooks', 'list', 'ws_1']).columns).toEqual(['webhook_id', 'url', 'event_types', 'enabled', 'success_rate.percent', 'success_rate.attempts', 'description']);
    expect(plan(['webhooks', 'test', 'ws_1', 'whk_1'])).toEqual({ method: 'POST', path: '/workspaces/ws_1/webhooks/whk_1/test' });
    expect(plan(['webhooks', 'deliveries', 'ws_1', 'whk_1', '--status', 'failed', '--limit', '10'])).toMatchObject({
      method: 'GET',
      path: '/workspaces/ws_1/webhooks/whk_1/deliveries?status=failed&limit=10',
    });
    expect(plan(['webhooks', 'delivery', 'ws_1', 'whk_1', 'evt_1:whk_1'])).toEqual({ method: 'GET', path: '/workspaces/ws_1/webhooks/whk_1/deliveries/evt_1%3Awhk_1' });
    expect(plan(['webhooks', 'replay', 'ws_1', 'whk_1', '--event-id', 'evt_1'])).toEqual({ method: 'POST', path: '/workspaces/ws_1/webhooks/whk_1/replay', body: { event_id: 'evt_1' } });
  });

  it('names what is missing', () => {
    expect(() => plan(['webhooks', 'show', 'ws_1'])).toThrow('missing <webhook_id>');
    expect(() => plan(['webhooks', 'replay', 'ws_1', 'whk_1'])).toThrow('missing --event-id');
    expect(() => plan(['webhooks', 'explode', 'ws_1'])).toThrow('unknown command: webhooks explode');
  });
});
