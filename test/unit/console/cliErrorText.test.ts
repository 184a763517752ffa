import { apiErrorText, usageErrorText, usageOf } from '../../../src/cli/errorText';

const USAGE = `usage: npm run console -- <resource> <action> [ids] [--flags] [--json]

  keys list <workspace_id>
  keys create <workspace_id> --scopes <scope,scope> [--environment live|test]
  keys roll <workspace_id> <key_id>
  numbers update <workspace_id> <number> [--agent-id bot_…|none] [--active true|false]
                 [--team-line +<digits>|none]
  numbers list <workspace_id>`;

describe('the console CLI words a failure in one line and a hint (issue 35 §10)', () => {
  it('a usage mistake names how that command is written, not the whole usage', () => {
    expect(usageErrorText('missing <workspace_id>', USAGE, ['keys', 'create'])).toBe(
      ['error: missing <workspace_id>', 'hint: it is written', '  keys create <workspace_id> --scopes <scope,scope> [--environment live|test]'].join('\n'),
    );
    // A command written on two lines keeps both; an unknown action shows its resource's commands.
    expect(usageOf(USAGE, ['numbers', 'update'])).toEqual([
      '  numbers update <workspace_id> <number> [--agent-id bot_…|none] [--active true|false]',
      '                 [--team-line +<digits>|none]',
    ]);
    expect(usageOf(USAGE, ['keys', 'frob']).map((l) => l.trim().split(' ').slice(0, 2).join(' '))).toEqual(['keys list', 'keys create', 'keys roll']);
    expect(usageErrorText('unknown command: frobnicate now', USAGE, ['frobnicate', 'now'])).toBe(
      'error: unknown command: frobnicate now\nhint: npm run console -- --help lists every command',
    );
  });

  it('a bad scope is a sentence: where, and the scopes there are', () => {
    const text = apiErrorText({
      code: 'invalid_argument',
      message: 'Request validation failed.',
      details: { errors: [{ loc: ['body', 'scopes', 1], msg: 'Invalid option: expected one of "calls:read"|"calls:write"|"messages:send"' }] },
    });
    expect(text).toBe('error: scopes (value 2): expected one of calls:read, calls:write, messages:send\nhint: invalid_argument; --json prints the whole answer');
    expect(text).not.toMatch(/[{}[\]"]/);
  });

  it('a refusal says its message, then its field, facts and reason as words', () => {
    expect(apiErrorText({ code: 'invalid_argument', message: 'A WhatsApp campaign needs a template.', details: { reason: 'template_not_found', field: 'template' } })).toBe(
      'error: A WhatsApp campaign needs a template.\nhint: field template; invalid_argument (template_not_found); --json prints the whole answer',
    );
    expect(apiErrorText({ code: 'not_found', message: 'Workspace not found.', details: {} })).toBe('error: Workspace not found.\nhint: not_found; --json prints the whole answer');
    expect(
      apiErrorText({
        code: 'failed_precondition',
        message: 'The audience is empty.',
        details: { reason: 'audience_empty', fix: 'Tag the contacts you mean, or choose another tag.', count: 0 },
      }),
    ).toBe('error: The audience is empty.\nhint: Tag the contacts you mean, or choose another tag; count 0; failed_precondition (audience_empty); --json prints the whole answer');
  });
});
