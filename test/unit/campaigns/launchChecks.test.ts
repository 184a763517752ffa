import { evaluate } from '../../../src/campaigns/evaluate';
import { checkLaunch, type LaunchCheck } from '../../../src/campaigns/launchChecks';
import { CampaignRefusal } from '../../../src/campaigns/refusal';
import { docsFor } from '../../../src/campaigns/evaluationFindings';
import type { CampaignDoc } from '../../../src/campaigns/campaign';
import type { WorkspaceDoc } from '../../../src/db/collections';
import { NOW, campaign, person, template, workspace } from './fixtures';

function run(c: CampaignDoc, ws: WorkspaceDoc, request = { expected_version: 1, confirm_recipients: null as number | null }, rows = [person(1), person(2)]) {
  const evaluated = jest.fn(async () =>
    evaluate({ campaign: c, workspace: ws, audience: { rows, unmatched: 0 }, suppressed: new Set(), template: { kind: 'approved', template: template() }, senderProblem: null }),
  );
  return { check: checkLaunch({ campaign: c, workspace: ws, request, now: NOW, evaluate: evaluated }).then(plain), evaluated };
}

/** A refusal as its parts: a `CampaignRefusal`, which the API answers by its one table (test/unit/api/errors.test.ts). */
function plain(check: LaunchCheck) {
  if (check.ok) return check;
  expect(check.refusal).toBeInstanceOf(CampaignRefusal);
  const { reason, message, details } = check.refusal;
  return { ok: false, refusal: { reason, message, details } };
}

const guardrail = (reason: string, message: string, fix: string, extra: Record<string, unknown> = {}) => ({
  ok: false,
  refusal: { reason, message, details: { docs: docsFor(reason), fix, ...extra } },
});

describe('launch checks, in the contract order', () => {
  it('passes a draft to running with the evaluation it ran', async () => {
    const { check } = run(campaign(), workspace());
    await expect(check).resolves.toMatchObject({ ok: true, to: 'running', evaluation: { result: { eligible: 2 } } });
  });

  it('goes to scheduled when start_at is in the future', async () => {
    const later = campaign({ schedule: { ...campaign().schedule, start_at: new Date(NOW.getTime() + 60_000) } });
    await expect(run(later, workspace()).check).resolves.toMatchObject({ ok: true, to: 'scheduled' });
    const past = campaign({ schedule: { ...campaign().schedule, start_at: new Date(NOW.getTime() - 60_000) } });
    await expect(run(past, workspace()).check).resolves.toMatchObject({ ok: true, to: 'running' });
  });

  it('refuses a stale expected_version with 409 version_conflict and the current version', async () => {
    await expect(run(campaign({ version: 3 }), workspace()).check).resolves.toEqual({
      ok: false,
      refusal: { reason: 'version_conflict', message: 'This campaign is at version 3, not 1; read it again.', details: { current_version: 3 } },
    });
  });

  it('(1) refuses anything but a draft or paused campaign with campaign_frozen, before the rest', async () => {
    const { check, evaluated } = run(campaign({ status: 'running' }), workspace({ suspended: true }));
    await expect(check).resolves.toEqual(
      guardrail('campaign_frozen', 'This campaign is running; only a draft or a paused campaign can be launched.', 'Create a new campaign; only a draft or a paused campaign can be launched.'),
    );
    expect(evaluated).not.toHaveBeenCalled();
  });

  it('then workspace_suspended, channel_dormant, allowance_exhausted, without evaluating', async () => {
    const dormant = workspace({ suspended: true });
    dormant.plan.chat_channel = false;
    const a = run(campaign(), dormant);
    await expect(a.check).resolves.toMatchObject({ ok: false, refusal: { reason: 'workspace_suspended' } });

    const noChannel = workspace();
    noChannel.plan.chat_channel = false;
    noChannel.plan.conversations_used = 100;
    await expect(run(campaign(), noChannel).check).resolves.toEqual(
      guardrail('channel_dormant', 'The plan no longer includes the WhatsApp channel.', 'Add the WhatsApp channel to the plan.'),
    );

    const spent = workspace();
    spent.plan.conversations_used = 100;
    const b = run(campaign(), spent);
    await expect(b.check).resolves.toEqual(
      guardrail('allowance_exhausted', "The plan's conversations for this month are used up and there are no prepaid credits.", 'Buy prepaid credits or wait for the monthly allowance.'),
    );
    expect(a.evaluated).not.toHaveBeenCalled();
    expect(b.evaluated).not.toHaveBeenCalled();
  });

  it('(4) refuses with the first block finding: reason, docs, fix and every finding', async () => {
    const { check } = run(campaign(), workspace(), undefined, [person(1, { phone: null })]);
    const result = await check;
    expect(result).toEqual(
      guardrail('audience_empty', 'The 1 person matched was excluded (no usable phone number: 1).', 'Add valid phone numbers to these contacts.', {
        findings: [expect.objectContaining({ code: 'audience_empty' }), expect.objectContaining({ code: 'invalid_destination', severity: 'warn' })],
      }),
    );
  });

  it('(5) refuses a confirm_recipients that differs with 409 version_conflict and eligible', async () => {
    await expect(run(campaign(), workspace(), { expected_version: 1, confirm_recipients: 3 }).check).resolves.toEqual({
      ok: false,
      refusal: {
        reason: 'version_conflict',
        message: 'The audience is now 2 people, not 3; evaluate again and confirm the new count.',
        details: { eligible: 2, confirm_recipients: 3 },
      },
    });
    await expect(run(campaign(), workspace(), { expected_version: 1, confirm_recipients: 2 }).check).resolves.toMatchObject({ ok: true });
  });

  it('relaunches a paused campaign without rebuilding the audience, confirming the staged count', async () => {
    const paused = campaign({ status: 'paused', version: 4, recipients: 7 });
    const a = run(paused, workspace(), { expected_version: 4, confirm_recipients: 7 });
    await expect(a.check).resolves.toEqual({ ok: true, to: 'running', evaluation: null });
    expect(a.evaluated).not.toHaveBeenCalled();
    await expect(run(paused, workspace(), { expected_version: 4, confirm_recipients: 2 }).check).resolves.toMatchObject({
      ok: false,
      refusal: { reason: 'version_conflict', details: { eligible: 7 } },
    });
  });
});
