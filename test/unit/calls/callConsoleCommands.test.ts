import { formatCallForPerson, formatScriptsForPerson } from '../../../src/cli/callCommands';
import { parseCommandLine, planCall } from '../../../src/cli/console';

const plan = (argv: string[]) => {
  const { positionals, values } = parseCommandLine(argv);
  return planCall(positionals, values, argv);
};

describe('the console CLI call commands', () => {
  it('plans call show, reread and inbound', () => {
    expect(plan(['call', 'show', 'ws_1', 'call_1'])).toMatchObject({ method: 'GET', path: '/workspaces/ws_1/calls/call_1' });
    expect(plan(['call', 'reread', 'ws_1', 'call_1'])).toEqual({ method: 'POST', path: '/workspaces/ws_1/calls/call_1/reread', body: {} });
    expect(plan(['call', 'inbound', 'ws_1', '--from', '+919811122233'])).toEqual({
      method: 'POST',
      path: '/workspaces/ws_1/calls/inbound',
      body: { from: '+919811122233', to_number: null },
    });
    // Numbers stay text: a number is not a quantity.
    expect(plan(['call', 'inbound', 'ws_1', '--from', '919811122233', '--to-number', '918040001234']).body).toEqual({ from: '919811122233', to_number: '918040001234' });
  });

  it('builds a callee script from flags, each flag one key', () => {
    expect(
      plan([
        'sim', 'call', 'set', 'ws_1', '+919811100001',
        '--ring', '0.5', '--talk', '20', '--end', 'caller_hangup', '--seconds-per-turn', '0.2', '--handoff-after', '4',
        '--answer', 'rating=I would say 4', '--answer', 'preferred_slot=Evening, please', '--reader-fail-times', '2',
      ]),
    ).toEqual({
      method: 'PUT',
      path: '/workspaces/ws_1/simulator/calls/%2B919811100001',
      body: {
        ring_seconds: 0.5,
        talk_seconds: 20,
        end: 'caller_hangup',
        seconds_per_turn: 0.2,
        handoff: { after_seconds: 4 },
        answers: { rating: 'I would say 4', preferred_slot: 'Evening, please' },
        reader: { fail_times: 2 },
      },
    });
    expect(plan(['sim', 'call', 'set', 'ws_1', '+9198', '--no-answer', '--network-outcome', 'busy']).body).toEqual({ answer: false, network_outcome: 'busy' });
    expect(plan(['sim', 'call', 'set', 'ws_1', '+9198', '--silent', '--originate-error', 'false', '--reader-permanent']).body).toEqual({
      silent: true,
      originate_error: false,
      reader: { permanent: true },
    });
    expect(plan(['sim', 'call', 'set', 'ws_1', '+9198', '--turn', 'model: Hello?', '--turn', 'user:  Not now, thanks.']).body).toEqual({
      turns: [
        { role: 'model', text: 'Hello?' },
        { role: 'user', text: 'Not now, thanks.' },
      ],
    });
  });

  it('takes a whole script as JSON, with flags over it', () => {
    expect(plan(['sim', 'call', 'set', 'ws_1', '+9198', '--json-script', '{"answer":true,"answers":{"a":"x"},"reader":{"fail_times":1}}', '--answer', 'b=y', '--reader-permanent']).body).toEqual({
      answer: true,
      answers: { a: 'x', b: 'y' },
      reader: { fail_times: 1, permanent: true },
    });
  });

  it('plans sim call list and clear; clear stands in for the 204', () => {
    expect(plan(['sim', 'call', 'list', 'ws_1'])).toMatchObject({ method: 'GET', path: '/workspaces/ws_1/simulator/calls' });
    expect(plan(['sim', 'call', 'clear', 'ws_1', '+919811100001'])).toEqual({
      method: 'DELETE',
      path: '/workspaces/ws_1/simulator/calls/%2B919811100001',
      noContent: { destination: '+919811100001', cleared: true },
    });
  });

  it('names what is missing or mistyped', () => {
    expect(() => plan(['call', 'show', 'ws_1'])).toThrow('missing <call_id>');
    expect(() => plan(['call', 'inbound', 'ws_1'])).toThrow('missing --from');
    expect(() => plan(['sim', 'call', 'set', 'ws_1'])).toThrow('missing <destination>');
    expect(() => plan(['sim', 'call', 'set', 'ws_1', '+9198', '--ring', 'soon'])).toThrow('--ring takes a number, not "soon"');
    expect(() => plan(['sim', 'call', 'set', 'ws_1', '+9198', '--silent', 'maybe'])).toThrow('--silent takes true or false, not "maybe"');
    expect(() => plan(['sim', 'call', 'set', 'ws_1', '+9198', '--answer', 'rating'])).toThrow('--answer takes <key>=<text>, not "rating"');
    expect(() => plan(['sim', 'call', 'set', 'ws_1', '+9198', '--turn', 'caller: hi'])).toThrow("--turn takes '<user|model|human>: <text>'");
    expect(() => plan(['sim', 'call', 'set', 'ws_1', '+9198', '--json-script', '[1]'])).toThrow('--json-script takes a JSON object');
    expect(() => plan(['sim', 'call', 'set', 'ws_1', '+9198', '--rings', '3'])).toThrow('unknown flag for sim call set: --rings');
    expect(() => plan(['call', 'explode', 'ws_1'])).toThrow('unknown command: call explode');
    expect(() => plan(['sim', 'call', 'explode', 'ws_1'])).toThrow('unknown command: sim call');
  });

  it('shows a call for a person: fields aligned, capture fields one a line, the transcript with times', () => {
    const text = formatCallForPerson({
      call_id: 'call_1',
      status: 'completed',
      outcome: 'agent_hangup',
      result: { state: 'ready', fields: { is_someone_home: true }, missing_required: [] },
      capture: {
        goal: 'Confirm',
        fields: [
          { key: 'is_someone_home', label: 'Is someone home?', type: 'yes_no', hint: null, options: [], required: true, display: 'auto' },
          { key: 'slot', label: 'Slot', type: 'choice', hint: null, options: ['Morning', 'Evening'], required: false, display: 'auto' },
        ],
        success: { field: 'is_someone_home', equals: 'yes' },
      },
      transcript: [
        { role: 'model', text: 'Is someone home?', at_seconds: 0.75 },
        { role: 'user', text: 'Yes.', at_seconds: 2.25 },
      ],
    });
    expect(text).toBe(
      [
        'call_id                        call_1',
        'status                         completed',
        'outcome                        agent_hangup',
        'result.state                   ready',
        'result.fields.is_someone_home  true',
        'result.missing_required        -',
        'capture.goal                   Confirm',
        'capture.is_someone_home        yes_no, required',
        'capture.slot                   choice: Morning|Evening',
        'capture.success                {"field":"is_someone_home","equals":"yes"}',
        '',
        'transcript:',
        '     0.8s  model  Is someone home?',
        '     2.3s  user   Yes.',
      ].join('\n'),
    );
    expect(formatCallForPerson({ call_id: 'call_2', capture: null, transcript: [] })).toBe('call_id  call_2\ncapture  -\n\ntranscript:\n  (none)');
  });

  it('lists scripts one destination a row', () => {
    const script = { answer: false, ring_seconds: 3, network_outcome: 'busy', originate_error: false, silent: false, talk_seconds: null, end: 'agent_hangup', handoff: null, seconds_per_turn: 1.5, turns: null, answers: {}, reader: { fail_times: 2, permanent: false } };
    expect(formatScriptsForPerson({ items: [{ destination: '+919811100001', script }] })).toBe(
      [
        'destination    answer  ring_seconds  network_outcome  originate_error  silent  talk_seconds  end           handoff  seconds_per_turn  reader  turns  answers',
        '+919811100001  false   3             busy             false            false   -             agent_hangup  -        1.5               fail 2  -      -',
      ].join('\n'),
    );
    expect(formatScriptsForPerson({ items: [] })).toBe('(none)');
  });
});
