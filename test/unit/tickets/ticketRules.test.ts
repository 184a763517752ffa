import { toE164, normaliseEmail, isPlausibleEmail } from '../../../src/contacts/contactIdentity';
import { contactIdFor } from '../../../src/contacts/contacts';
import { firstMessageId, isTicketId, publicRefCandidate, ticketIdFor } from '../../../src/tickets/ticketIdentity';
import { ALLOWED_MOVES, canMove, createTags, normaliseTags, slaDueAt, TICKET_STATUSES, type TicketStatus } from '../../../src/tickets/ticketRules';
import { createSimulatedTriage, SIMULATE_TRIAGE_ERROR, SIMULATE_TRIAGE_TIMEOUT } from '../../../src/tickets/triage/simulatedTriage';
import { runTriage } from '../../../src/tickets/triage/runTriage';
import { planCall } from '../../../src/cli/console';

describe('ticket tags', () => {
  it('lower-cases, turns spaces into hyphens, cuts at 32 characters and drops duplicates', () => {
    expect(normaliseTags(['VIP Customer', 'vip customer', ' Billing ', 'a'.repeat(40), 'BILLING', '', '   ', 'two  spaces\tand tab'])).toEqual([
      'vip-customer',
      'billing',
      'a'.repeat(32),
      'two-spaces-and-tab',
    ]);
  });

  it('cuts by characters, never splitting one', () => {
    const tag = normaliseTags(['😀'.repeat(40)])[0]!;
    expect(Array.from(tag)).toHaveLength(32);
    expect(tag).toBe('😀'.repeat(32));
  });

  it('adds api on create, once, at the end', () => {
    expect(createTags(['Urgent', 'API'])).toEqual(['urgent', 'api']);
    expect(createTags([])).toEqual(['api']);
    expect(createTags(['x'])).toEqual(['x', 'api']);
  });
});

describe('ticket status moves', () => {
  const table: Record<TicketStatus, TicketStatus[]> = {
    new: ['open', 'pending', 'waiting_customer', 'resolved', 'closed'],
    open: ['pending', 'waiting_customer', 'resolved', 'closed'],
    pending: ['open', 'waiting_customer', 'resolved', 'closed'],
    waiting_customer: ['open', 'pending', 'resolved', 'closed'],
    resolved: ['open', 'closed'],
    closed: ['open'],
  };

  it('matches the contract table exactly', () => {
    expect(ALLOWED_MOVES).toEqual(table);
  });

  const cases = TICKET_STATUSES.flatMap((from) => TICKET_STATUSES.map((to) => [from, to, table[from].includes(to)] as const));
  it.each(cases)('%s -> %s allowed: %s', (from, to, allowed) => {
    expect(canMove(from, to)).toBe(allowed);
  });

  it('never moves back to new', () => {
    for (const from of TICKET_STATUSES) expect(canMove(from, 'new')).toBe(false);
  });
});

describe('SLA', () => {
  const created = new Date('2026-03-01T10:00:00.000Z');
  it.each([
    ['urgent', 2],
    ['high', 8],
    ['normal', 24],
    ['low', 72],
  ] as const)('%s is due %i hours after creation', (priority, hours) => {
    expect(slaDueAt(priority, created).getTime() - created.getTime()).toBe(hours * 3_600_000);
  });
});

describe('ticket identity', () => {
  const body = Buffer.from('{"subject":"a"}');

  it('derives tkt_ plus 24 hex from the workspace and the raw bytes', () => {
    const id = ticketIdFor('ws_1', body);
    expect(id).toMatch(/^tkt_[0-9a-f]{24}$/);
    expect(isTicketId(id)).toBe(true);
    expect(ticketIdFor('ws_1', Buffer.from('{"subject":"a"}'))).toBe(id);
    expect(ticketIdFor('ws_1', Buffer.from('{"subject": "a"}'))).not.toBe(id);
    expect(ticketIdFor('ws_2', body)).not.toBe(id);
  });

  it('public refs are TKT- and 8 uppercase hex, the first from the id, later ones distinct', () => {
    const id = ticketIdFor('ws_1', body);
    expect(publicRefCandidate(id, 0)).toBe(`TKT-${id.slice(4, 12).toUpperCase()}`);
    const refs = [0, 1, 2, 3].map((n) => publicRefCandidate(id, n));
    for (const ref of refs) expect(ref).toMatch(/^TKT-[0-9A-F]{8}$/);
    expect(new Set(refs).size).toBe(4);
    expect(firstMessageId(id)).toBe(firstMessageId(id));
  });
});

describe('contact identities', () => {
  it('reads phones as international or of the workspace country, in E.164', () => {
    expect(toE164('+91 98765 43210', 'IN')).toBe('+919876543210');
    expect(toE164('098765-43210', 'IN')).toBe('+919876543210');
    expect(toE164('98765 43210', 'IN')).toBe('+919876543210');
    expect(toE164('+1 415 555 2671', 'IN')).toBe('+14155552671');
    expect(toE164('12345', 'IN')).toBeNull();
    expect(toE164('not a number', 'IN')).toBeNull();
  });

  it('normalises emails for matching', () => {
    expect(normaliseEmail('  Asha@Example.COM ')).toBe('asha@example.com');
    expect(isPlausibleEmail('asha@example.com')).toBe(true);
    expect(isPlausibleEmail('asha@example')).toBe(false);
    expect(isPlausibleEmail('as ha@example.com')).toBe(false);
  });

  it('derives the contact id from the identity it was created with, per workspace', () => {
    const id = contactIdFor('ws_1', 'email', 'a@b.co');
    expect(id).toMatch(/^cnt_[0-9a-f]{24}$/);
    expect(contactIdFor('ws_1', 'email', 'a@b.co')).toBe(id);
    expect(contactIdFor('ws_2', 'email', 'a@b.co')).not.toBe(id);
    expect(contactIdFor('ws_1', 'phone', 'a@b.co')).not.toBe(id);
  });
});

describe('simulated triage', () => {
  const triage = createSimulatedTriage();
  const input = (subject: string, description = 'details') => ({ subject, description, priority: 'normal' as const, tags: [] });

  it('suggests a category and a priority from keywords, the same way every time', async () => {
    const a = await runTriage(triage, input('Refund for a double charge', 'I was charged twice, please refund ASAP'));
    expect(a).toEqual({
      ok: true,
      suggestion: {
        category: 'billing',
        priority: 'urgent',
        notes: 'Suggested category billing (mentions "refund", "charged", "charge"); priority urgent (mentions "asap").',
      },
    });
    expect(await runTriage(triage, input('Refund for a double charge', 'I was charged twice, please refund ASAP'))).toEqual(a);
    expect(await runTriage(triage, input('Hello there'))).toEqual({
      ok: true,
      suggestion: { category: null, priority: null, notes: 'Suggested no category keywords; no priority keywords.' },
    });
  });

  it('fails, or hangs past the deadline, on request', async () => {
    expect(await runTriage(triage, input(`x ${SIMULATE_TRIAGE_ERROR}`))).toEqual({ ok: false, error: 'simulated triage failure' });
    expect(await runTriage(triage, input(`x ${SIMULATE_TRIAGE_TIMEOUT}`), 50)).toEqual({ ok: false, error: 'triage took longer than 50 ms' });
  });
});

describe('the console CLI ticket commands', () => {
  it('maps settings, assignment and escalation to console routes', () => {
    expect(planCall(['tickets', 'configure', 'ws_1'], { 'auto-assign': 'true', assignment: 'first', assignees: 'u1:Asha,u2:Ravi Kumar' })).toEqual({
      method: 'PATCH',
      path: '/workspaces/ws_1/ticket-settings',
      body: { auto_assign: true, assignment: 'first', assignees: [{ id: 'u1', name: 'Asha' }, { id: 'u2', name: 'Ravi Kumar' }] },
    });
    expect(planCall(['tickets', 'assign', 'ws_1', 'tkt_1'], { 'assignee-id': 'none' })).toEqual({
      method: 'POST',
      path: '/workspaces/ws_1/tickets/tkt_1/assign',
      body: { assignee_id: null },
    });
    expect(planCall(['tickets', 'escalate', 'ws_1', 'tkt_1'], { reason: 'VIP' })).toEqual({
      method: 'POST',
      path: '/workspaces/ws_1/tickets/tkt_1/escalation',
      body: { open: true, reason: 'VIP' },
    });
    expect(() => planCall(['tickets', 'configure', 'ws_1'], { assignees: 'nocolon' })).toThrow(/<id>:<name>/);
  });
});
