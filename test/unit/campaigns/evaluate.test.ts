import { evaluate, type EvaluateInput } from '../../../src/campaigns/evaluate';
import { docsFor } from '../../../src/campaigns/evaluationFindings';
import { campaign, person, template, workspace } from './fixtures';

const input = (overrides: Partial<EvaluateInput> = {}): EvaluateInput => ({
  campaign: campaign(),
  workspace: workspace(),
  audience: { rows: [person(1), person(2)], unmatched: 0 },
  suppressed: new Set(),
  template: { kind: 'approved', template: template() },
  senderProblem: null,
  ...overrides,
});

const codes = (i: EvaluateInput) => evaluate(i).result.findings.map((f) => `${f.severity}:${f.code}:${f.count}`);

describe('evaluate', () => {
  it('answers eligible, total_rows, samples keyed by placeholder number and the checksum', () => {
    const { result, recipients } = evaluate(input());
    expect(result).toEqual({
      eligible: 2,
      total_rows: 2,
      excluded: {},
      invalid_rows: [],
      sample: [
        { to: person(1).phone, name: 'Person 1', variables: { '1': 'Person 1', '2': 'A-1', '3': 'Friday' } },
        { to: person(2).phone, name: 'Person 2', variables: { '1': 'Person 2', '2': 'A-1', '3': 'Friday' } },
      ],
      findings: [],
      checksum: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    expect(recipients).toHaveLength(2);
  });

  it('shows at most 5 samples', () => {
    const rows = Array.from({ length: 9 }, (_, i) => person(i + 1));
    expect(evaluate(input({ audience: { rows, unmatched: 0 } })).result.sample).toHaveLength(5);
  });

  it('gives each finding its code, severity, message, fix, docs and count', () => {
    const result = evaluate(input({ audience: { rows: [person(1), person(2, { phone: null })], unmatched: 0 } })).result;
    expect(result.findings).toEqual([
      {
        code: 'invalid_destination',
        severity: 'warn',
        message: '1 contact has no usable phone number.',
        fix: 'Add a valid phone number to these contacts.',
        docs: docsFor('invalid_destination'),
        count: 1,
      },
    ]);
    expect(docsFor('invalid_destination')).toBe('https://docs.orchestrator.dev/campaigns#invalid-destination');
  });

  it('blocks an empty audience', () => {
    expect(codes(input({ audience: { rows: [], unmatched: 3 } }))).toEqual(['block:audience_empty:0', 'info:contacts_not_found:3']);
  });

  it("blames a segment's tags, not phone numbers, when no contact has them (issue 35 §5)", () => {
    const tagged = campaign({ audience: { kind: 'segment', tags: ['nobody-has-this'], contact_id_count: 0 } });
    const empty = evaluate(input({ campaign: tagged, audience: { rows: [], unmatched: 0 } })).result.findings[0];
    expect(empty).toMatchObject({ code: 'audience_empty', message: 'No contact has the tag "nobody-has-this": nobody matched.' });
    expect(empty!.fix).not.toMatch(/phone/);
  });

  it('blocks a template with no approved variant', () => {
    const found = evaluate(input({ template: { kind: 'not_approved' } })).result.findings[0]!;
    expect(found).toMatchObject({ code: 'template_not_approved', severity: 'block', count: 2, message: 'Template order_update has no approved variant.' });
  });

  it('blocks a variable count that does not match the body, and header or button placeholders it cannot fill', () => {
    const two = campaign({ template: { name: 'order_update', language: null, variables: ['a', 'b'] } });
    expect(evaluate(input({ campaign: two })).result.findings[0]).toMatchObject({
      code: 'template_variables',
      severity: 'block',
      message: 'Template order_update (en): the body has 3 placeholders but the campaign gives 2 variables.',
    });
    const withHeader = template({ header: { type: 'text', text: 'For {{1}}' } });
    expect(codes(input({ template: { kind: 'approved', template: withHeader } }))).toEqual(['block:template_variables:2']);
    const withMedia = template({ header: { type: 'image', media_url: null } });
    expect(codes(input({ template: { kind: 'approved', template: withMedia } }))).toEqual(['block:template_media_missing:2']);
  });

  it('blocks a sender that is not connected', () => {
    expect(evaluate(input({ senderProblem: 'Sender snd_x is not connected.' })).result.findings[0]).toMatchObject({
      code: 'channel_not_connected',
      severity: 'block',
      message: 'Sender snd_x is not connected.',
    });
  });

  it('blocks over the plan per-campaign limit, and over the ceiling with audience_too_large instead', () => {
    const rows = Array.from({ length: 4 }, (_, i) => person(i + 1));
    const small = workspace({ campaign_settings: { max_recipients_per_campaign: 3 } } as never);
    expect(codes(input({ workspace: small, audience: { rows, unmatched: 0 } }))).toEqual(['block:plan_limit:4']);
    const many = Array.from({ length: 50_001 }, (_, i) => person(i + 1));
    expect(codes(input({ workspace: small, audience: { rows: many, unmatched: 0 } }))).toEqual(['block:audience_too_large:50001']);
    expect(codes(input({ audience: { rows: many.slice(0, 50_000), unmatched: 0 } }))).toEqual([]);
  });

  it('warns that asked hours were clamped (quiet_hours)', () => {
    const early = campaign({ schedule: { ...campaign().schedule, requested_start_hour: 7, requested_end_hour: 23 } });
    expect(evaluate(input({ campaign: early })).result.findings).toEqual([
      expect.objectContaining({ code: 'quiet_hours', severity: 'warn', count: 2, message: 'Sending hours were clamped to 9:00 to 21:00 (Asia/Kolkata).' }),
    ]);
  });

  it('lists block findings before warnings and notes', () => {
    const rows = [person(1, { email: null }), person(2, { phone: null })];
    const emailed = campaign({ template: { name: 'order_update', language: null, variables: ['{{contact.email}}', 'x', 'y'] } });
    expect(codes(input({ campaign: emailed, audience: { rows, unmatched: 1 } }))).toEqual([
      'block:audience_empty:0',
      'warn:invalid_destination:1',
      'warn:missing_variable:1',
      'info:contacts_not_found:1',
    ]);
  });
});
