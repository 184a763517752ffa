import { bodyFromFlags, formatHuman, parseCommandLine, planCall } from '../../../src/main/console';

describe('the console CLI', () => {
  it('turns flags into a nested body with typed values', () => {
    expect(
      bodyFromFlags({
        'suspended': 'true',
        'plan.prepaid-credits': '0',
        'capabilities.tickets': 'false',
        'calling-country-codes': '91,971',
        'name': '123',
        'agent-id': 'none',
        'demo': true,
        'json': true,
      }),
    ).toEqual({
      suspended: true,
      plan: { prepaid_credits: 0 },
      capabilities: { tickets: false },
      calling_country_codes: ['91', '971'],
      name: '123',
      agent_id: null,
      demo: true,
    });
  });

  it('reads --flag value, --flag=value and a bare --flag', () => {
    expect(parseCommandLine(['workspaces', 'create', '--name', 'Cli demo', '--demo', '--country=AE', '--json'])).toEqual({
      positionals: ['workspaces', 'create'],
      values: { name: 'Cli demo', demo: true, country: 'AE', json: true },
    });
  });

  it('maps commands to console routes', () => {
    expect(planCall(['keys', 'roll', 'ws_1', 'key_2'], {})).toEqual({ method: 'POST', path: '/workspaces/ws_1/keys/key_2/roll', body: {} });
    expect(planCall(['numbers', 'update', 'ws_1', '+919'], { 'agent-id': 'bot_x' })).toEqual({
      method: 'PATCH',
      path: '/workspaces/ws_1/numbers/%2B919',
      body: { agent_id: 'bot_x' },
    });
    expect(() => planCall(['keys', 'roll', 'ws_1'], {})).toThrow('missing <key_id>');
    expect(() => planCall(['nope', 'x'], {})).toThrow('unknown command: nope x');
  });

  it('prints a list as aligned columns and a record as aligned lines', () => {
    expect(formatHuman({ items: [{ key_id: 'key_1', scopes: ['a', 'b'], revoked_at: null }] }, ['key_id', 'scopes', 'revoked_at'])).toBe(
      'key_id  scopes  revoked_at\nkey_1   a,b     -',
    );
    expect(formatHuman({ workspace_id: 'ws_1', plan: { prepaid_credits: 0 } })).toBe('workspace_id          ws_1\nplan.prepaid_credits  0');
    expect(formatHuman({ items: [] }, ['a'])).toBe('(none)');
  });
});
