import { formatEvaluationForPerson } from '../../../src/cli/campaignCommands';
import { bodyFromFlags, formatHuman, parseCommandLine, planCall } from '../../../src/cli/console';

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
    // numbers, senders and templates are one kind of command: list with its columns, add, update by id
    expect(planCall(['senders', 'list', 'ws_1'], {})).toEqual({ method: 'GET', path: '/workspaces/ws_1/senders', columns: ['sender_id', 'phone', 'display_name', 'is_default', 'connected', 'agent_id'] });
    expect(planCall(['senders', 'deploy', 'ws_1', 'snd_1'], { 'agent-id': 'bot_1' })).toEqual({ method: 'PATCH', path: '/workspaces/ws_1/senders/snd_1', body: { agent_id: 'bot_1' } });
    expect(planCall(['senders', 'undeploy', 'ws_1', 'snd_1'], {})).toEqual({ method: 'PATCH', path: '/workspaces/ws_1/senders/snd_1', body: { agent_id: null } });
    expect(() => planCall(['senders', 'deploy', 'ws_1', 'snd_1'], {})).toThrow('missing --agent-id');
    expect(planCall(['inbox', 'list', 'ws_1'], { filter: 'held' })).toMatchObject({ method: 'GET', path: '/workspaces/ws_1/agent-inbox?filter=held' });
    expect(planCall(['inbox', 'reply', 'ws_1', 'con_1'], { 'member-name': 'Priya', text: '42' })).toEqual({ method: 'POST', path: '/workspaces/ws_1/conversations/con_1/team-replies', body: { member_name: 'Priya', text: '42' } });
    expect(planCall(['inbox', 'hand-back', 'ws_1', 'con_1'], { 'member-name': 'Priya' })).toEqual({ method: 'POST', path: '/workspaces/ws_1/conversations/con_1/hand-back', body: { member_name: 'Priya' } });
    expect(planCall(['templates', 'add', 'ws_1'], { name: 'order_update' })).toEqual({ method: 'POST', path: '/workspaces/ws_1/templates', body: { name: 'order_update' } });
    expect(() => planCall(['senders', 'update', 'ws_1'], {})).toThrow('missing <sender_id>');
    expect(() => planCall(['constructor', 'list', 'ws_1'], {})).toThrow('unknown command: constructor list');
  });

  it('agents: voice flags go under voice (idle seconds a number), --reset sends null, a team line stays text', () => {
    expect(planCall(['agents', 'update', 'ws_1', 'bot_2'], { greeting: 'Namaste!', language: 'hi-IN', 'idle-seconds': '12', reset: 'persona,voice', json: true })).toEqual({
      method: 'PATCH',
      path: '/workspaces/ws_1/agents/bot_2',
      body: { voice: { greeting: 'Namaste!', language: 'hi-IN', idle_seconds: 12, persona: null, voice: null } },
    });
    expect(planCall(['agents', 'create', 'ws_1'], { name: '123', 'max-call-minutes': '4', persona: 'the desk', 'idle-seconds': 'soon' })).toEqual({
      method: 'POST',
      path: '/workspaces/ws_1/agents',
      // A number that is no number goes as written: the API says which field it refuses.
      body: { name: '123', max_call_minutes: 4, voice: { persona: 'the desk', idle_seconds: 'soon' } },
    });
    expect(planCall(['agents', 'show', 'ws_1', 'bot_2'], {})).toEqual({ method: 'GET', path: '/workspaces/ws_1/agents/bot_2' });
    expect(planCall(['agents', 'list', 'ws_1'], {}).columns).toEqual(['agent_id', 'name', 'max_call_minutes', 'voice.voice', 'voice.language', 'voice.idle_seconds']);
    expect(() => planCall(['agents', 'show', 'ws_1'], {})).toThrow('missing <agent_id>');
    expect(() => planCall(['agents', 'update', 'ws_1', 'bot_2'], { reset: 'tone' })).toThrow('--reset takes voice settings (persona, instructions, voice, language, greeting, idle-seconds), not "tone"');
    expect(() => planCall(['agents', 'update', 'ws_1', 'bot_2'], { reset: 'greeting', greeting: 'Hi' })).toThrow('--reset greeting and --greeting cannot go together');
    expect(() => planCall(['agents', 'create', 'ws_1'], { name: 'x', reset: 'greeting' })).toThrow('--reset is for agents update');
    expect(() => planCall(['agents', 'create', 'ws_1'], { name: 'x', tone: 'warm' })).toThrow('unknown flag for agents: --tone');
    expect(() => planCall(['agents', 'create', 'ws_1'], { name: 'x', greeting: true })).toThrow('--greeting needs a value');
    expect(planCall(['numbers', 'update', 'ws_1', '912240001111'], { 'team-line': '02240001111' }).body).toEqual({ team_line: '02240001111' });
    expect(planCall(['numbers', 'update', 'ws_1', '912240001111'], { 'team-line': 'none' }).body).toEqual({ team_line: null });
    expect(planCall(['numbers', 'add', 'ws_1'], { number: '+912240001111', 'team-line': '+912240002222' }).body).toEqual({ number: '+912240001111', team_line: '+912240002222' });
  });

  it('a list column may read inside an object; a missing value shows as -', () => {
    expect(formatHuman({ items: [{ agent_id: 'bot_1', voice: { language: 'hi-IN' } }, { agent_id: 'bot_2' }] }, ['agent_id', 'voice.language'])).toBe(
      'agent_id  voice.language\nbot_1     hi-IN\nbot_2     -',
    );
  });

  it('prints a list as aligned columns and a record as aligned lines', () => {
    expect(formatHuman({ items: [{ key_id: 'key_1', scopes: ['a', 'b'], revoked_at: null }] }, ['key_id', 'scopes', 'revoked_at'])).toBe(
      'key_id  scopes  revoked_at\nkey_1   a,b     -',
    );
    expect(formatHuman({ workspace_id: 'ws_1', plan: { prepaid_credits: 0 } })).toBe('workspace_id          ws_1\nplan.prepaid_credits  0');
    expect(formatHuman({ items: [] }, ['a'])).toBe('(none)');
  });

  it('never prints [object Object]: objects inside a list are shown as JSON', () => {
    expect(formatHuman({ workspace_id: 'ws_1', sample: [{ to: '+91', name: 'Asha' }], tags: ['a', 'b'] })).toBe(
      'workspace_id  ws_1\nsample        {"to":"+91","name":"Asha"}\ntags          a,b',
    );
  });

  it('prints campaigns evaluate as counts, then a line per sample recipient, invalid row and finding', () => {
    const call = planCall(['campaigns', 'evaluate', 'ws_1', 'cmp_2'], {});
    expect(call).toMatchObject({ method: 'POST', path: '/workspaces/ws_1/campaigns/cmp_2/evaluate' });
    const evaluation = {
      eligible: 2,
      total_rows: 4,
      excluded: { opted_out: 1, invalid_phone: 0, missing_variable: 1 },
      invalid_rows: [{ reason: 'missing_variable', contact_id: 'cnt_3', field: 'name' }],
      sample: [
        { to: '+919812345678', name: 'Asha', variables: { '1': 'Asha', '2': 'A-1' } },
        { to: '+919812300001', name: null, variables: {} },
      ],
      findings: [{ code: 'recipients_excluded', severity: 'warn', message: '2 contacts are left out.', fix: 'Check their numbers.', docs: 'https://x', count: 2 }],
      checksum: 'sha256:ab',
    };
    const text = call.format!(evaluation, () => '');
    expect(text).toBe(formatEvaluationForPerson(evaluation));
    expect(text).toBe(
      [
        'eligible  2 of 4',
        'excluded  opted_out 1, missing_variable 1',
        'checksum  sha256:ab',
        '',
        'sample (2)',
        '  +919812345678  Asha  1=Asha 2=A-1',
        '  +919812300001  -     -',
        '',
        'invalid rows (1)',
        '  cnt_3  missing_variable  name',
        '',
        'findings (1)',
        '  warn  recipients_excluded (2): 2 contacts are left out.',
        '    fix: Check their numbers.',
      ].join('\n'),
    );
    expect(text).not.toContain('[object Object]');
  });
});
