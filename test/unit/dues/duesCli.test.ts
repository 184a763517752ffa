import { planCall } from '../../../src/cli/console';

describe('the console CLI: dues commands', () => {
  const app = '/workspaces/ws_1/apps/dues';

  it('install and uninstall set the workspace\'s installed apps', () => {
    expect(planCall(['dues', 'install', 'ws_1'], {})).toEqual({ method: 'PATCH', path: '/workspaces/ws_1', body: { installed_apps: ['dues'] } });
    expect(planCall(['dues', 'uninstall', 'ws_1'], {})).toEqual({ method: 'PATCH', path: '/workspaces/ws_1', body: { installed_apps: [] } });
  });

  it('configure sends the settings given, lists split and numbers read', () => {
    expect(
      planCall(['dues', 'configure', 'ws_1'], {
        'reminder-offset-days': '2',
        'followup-interval-days': '3,5',
        'send-hour': '11',
        'template': 'payment_due',
        'variables': 'name,amount,due_date',
        'upi-id': 'shop@bank',
        'receipt': 'true',
        'receipt-template': 'payment_receipt',
      }),
    ).toEqual({
      method: 'PUT',
      path: `${app}/settings`,
      body: {
        reminder_offset_days: 2,
        followup_interval_days: [3, 5],
        send_hour: 11,
        template: { name: 'payment_due', variables: ['name', 'amount', 'due_date'] },
        collection: { mode: 'manual_upi', upi_id: 'shop@bank', qr_url: null },
        receipt: { enabled: true, template: { name: 'payment_receipt' } },
      },
    });
  });

  it('maps subscriber and due commands to the console routes', () => {
    expect(planCall(['dues', 'settings', 'ws_1'], {})).toEqual({ method: 'GET', path: `${app}/settings` });
    expect(planCall(['dues', 'pause', 'ws_1', 'sub_1'], {})).toEqual({ method: 'POST', path: `${app}/subscribers/sub_1/pause` });
    expect(planCall(['dues', 'cancel', 'ws_1', 'sub_1'], {})).toEqual({ method: 'POST', path: `${app}/subscribers/sub_1/cancel` });
    expect(planCall(['dues', 'waive', 'ws_1', 'due_1'], {})).toEqual({ method: 'POST', path: `${app}/dues/due_1/waive` });
    expect(planCall(['dues', 'cancel-due', 'ws_1', 'due_1'], {})).toEqual({ method: 'POST', path: `${app}/dues/due_1/cancel` });
    expect(planCall(['dues', 'list', 'ws_1'], { 'subscriber-id': 'sub_1', 'status': 'reminded' })).toMatchObject({
      method: 'GET',
      path: `${app}/dues?subscriber_id=sub_1&status=reminded`,
    });
    expect(planCall(['dues', 'subscribers', 'ws_1'], { status: 'paused' })).toMatchObject({ method: 'GET', path: `${app}/subscribers?status=paused` });
    expect(planCall(['dues', 'paid', 'ws_1', 'due_1'], { 'expected-version': '2', 'reference': 'cash', 'amount': '500' })).toEqual({
      method: 'POST',
      path: `${app}/dues/due_1/paid`,
      body: { expected_version: 2, amount: 500, reference: 'cash' },
    });
    expect(planCall(['dues', 'gateway-paid', 'ws_1', 'due_1'], { reference: 'pay_1' })).toEqual({
      method: 'POST',
      path: `${app}/dues/due_1/gateway-payment`,
      body: { reference: 'pay_1' },
    });
    expect(planCall(['dues', 'script-links', 'ws_1'], { create: 'fail' })).toEqual({ method: 'PUT', path: '/workspaces/ws_1/simulator/payment-links', body: { create: 'fail' } });
    expect(planCall(['dues', 'script-links', 'ws_1'], { 'paid-after-minutes': '5' })).toEqual({
      method: 'PUT',
      path: '/workspaces/ws_1/simulator/payment-links',
      body: { paid_after_minutes: 5 },
    });
    expect(planCall(['dues', 'link-script', 'ws_1'], {})).toEqual({ method: 'GET', path: '/workspaces/ws_1/simulator/payment-links' });
    expect(planCall(['dues', 'reset-links', 'ws_1'], {})).toEqual({ method: 'DELETE', path: '/workspaces/ws_1/simulator/payment-links' });
    expect(() => planCall(['dues', 'waive', 'ws_1'], {})).toThrow('missing <due_id>');
    expect(() => planCall(['dues', 'pause', 'ws_1'], {})).toThrow('missing <subscriber_id>');
  });
});
