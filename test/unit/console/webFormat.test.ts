import { fieldValue, MISSING, turnLabel } from '../../../api/console/web/src/format';

describe("the web console's wording", () => {
  it('shows a yes/no answer as Yes or No, a missing value as a dash, and others as they are', () => {
    expect(fieldValue(true)).toBe('Yes');
    expect(fieldValue(false)).toBe('No');
    expect(fieldValue(null)).toBe(MISSING);
    expect(fieldValue(undefined)).toBe('—');
    expect(fieldValue(4)).toBe('4');
    expect(fieldValue(0)).toBe('0');
    expect(fieldValue('')).toBe('');
    expect(fieldValue('Tuesday')).toBe('Tuesday');
    expect(fieldValue(['red', 'blue'])).toBe('["red","blue"]');
  });

  it("labels the business's campaign and template messages apart from a team member's reply and the AI agent", () => {
    expect(turnLabel({ role: 'human', campaign_id: 'cmp_1', template: 'order_update' })).toBe('Business');
    expect(turnLabel({ role: 'human', campaign_id: null, template: 'order_update' })).toBe('Business');
    expect(turnLabel({ role: 'human', campaign_id: 'cmp_1', template: null })).toBe('Business');
    expect(turnLabel({ role: 'human', campaign_id: null, template: null })).toBe('Team member');
    expect(turnLabel({ role: 'human' })).toBe('Team member');
    expect(turnLabel({ role: 'model' })).toBe('AI agent');
    expect(turnLabel({ role: 'user' })).toBe('Customer');
    expect(turnLabel({ role: 'human', kind: 'trail', template: 'order_update' })).toBe('Trail');
    expect(turnLabel({ role: 'system' })).toBe('system');
  });
});
