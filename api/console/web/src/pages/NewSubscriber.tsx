import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client';
import { Options } from '../components/common';
import { described, Field, FormFoot, useFormSubmit } from '../components/forms';
import { Link, navigate } from '../router';

const CYCLES = [
  ['monthly', 'Monthly'],
  ['weekly', 'Weekly'],
  ['quarterly', 'Quarterly'],
  ['half_yearly', 'Half-yearly'],
  ['yearly', 'Yearly'],
  ['custom_days', 'Every N days'],
] as const;

const value = (e: Event) => (e.currentTarget as HTMLInputElement).value;
const number = (s: string) => (s.trim() === '' ? undefined : Number(s));

/**
 * A new dues subscriber: who pays, how much and how often. The server checks it (the public
 * create's rules: a usable phone, one subscriber per phone); a refusal shows beside its field,
 * and the new subscriber opens on the dues page with its first two dues.
 */
export function NewSubscriberPage({ ws }: { ws: string }) {
  const [name, setName] = useState('');
  const [phone, setPhone] = useState('');
  const [email, setEmail] = useState('');
  const [plan, setPlan] = useState('');
  const [amount, setAmount] = useState('');
  const [cycle, setCycle] = useState<(typeof CYCLES)[number][0]>('monthly');
  const [cycleDays, setCycleDays] = useState('');
  const [dueDay, setDueDay] = useState('');
  const [startDate, setStartDate] = useState('');
  const { submit, onSubmit, errors, err } = useFormSubmit();

  function request(): Record<string, unknown> {
    const body: Record<string, unknown> = { name: name.trim(), phone: phone.trim(), amount: number(amount) ?? null, cycle_unit: cycle };
    if (email.trim()) body.email = email.trim();
    if (plan.trim()) body.plan_name = plan.trim();
    if (cycle === 'custom_days' && cycleDays.trim()) body.cycle_days = number(cycleDays);
    if (dueDay.trim()) body.due_day = number(dueDay);
    if (startDate) body.start_date = startDate;
    return body;
  }

  return (
    <>
      <p>
        <Link to={`/w/${ws}/dues`}>All subscribers and dues</Link>
      </p>
      <h1>New subscriber</h1>
      <p>Someone who pays you regularly. Their first two dues are raised at once; each is reminded and followed up on WhatsApp until paid.</p>
      <form
        class="create"
        noValidate
        onSubmit={onSubmit(async () => {
          const created = await unwrap(api.POST('/console/v1/workspaces/{workspace_id}/apps/dues/subscribers', { params: { path: { workspace_id: ws } }, body: request() as never }));
          navigate(`/w/${ws}/dues/${created.subscriber_id}`);
        })}
      >
        <fieldset>
          <legend>Who pays</legend>
          <Field id="subscriber-name" label="Name" error={err('name')}>
            <input {...described('subscriber-name', err('name'))} value={name} autoComplete="off" onInput={(e) => setName(value(e))} />
          </Field>
          <Field id="subscriber-phone" label="WhatsApp number" hint="With its country code (+91…), or a number of the workspace's country." error={err('phone')}>
            <input {...described('subscriber-phone', err('phone'), 'hint')} type="tel" value={phone} autoComplete="off" onInput={(e) => setPhone(value(e))} />
          </Field>
          <Field id="subscriber-email" label="Email" hint="Optional." error={err('email')}>
            <input {...described('subscriber-email', err('email'), 'hint')} type="email" value={email} autoComplete="off" onInput={(e) => setEmail(value(e))} />
          </Field>
        </fieldset>
        <fieldset>
          <legend>Plan</legend>
          <Field id="subscriber-plan" label="Plan name" hint="Empty: Monthly plan." error={err('plan_name')}>
            <input {...described('subscriber-plan', err('plan_name'), 'hint')} value={plan} onInput={(e) => setPlan(value(e))} />
          </Field>
          <Field id="subscriber-amount" label="Amount (₹)" hint="Each due, in rupees." error={err('amount')}>
            <input {...described('subscriber-amount', err('amount'), 'hint')} type="number" inputMode="decimal" step="0.01" value={amount} onInput={(e) => setAmount(value(e))} />
          </Field>
          <div class="row">
            <Field id="subscriber-cycle" label="How often" error={err('cycle_unit')}>
              <select {...described('subscriber-cycle', err('cycle_unit'))} value={cycle} onChange={(e) => setCycle(value(e) as typeof cycle)}>
                <Options of={CYCLES} />
              </select>
            </Field>
            {cycle === 'custom_days' ? (
              <Field id="subscriber-cycle-days" label="Every how many days" hint="1 to 730." error={err('cycle_days')}>
                <input {...described('subscriber-cycle-days', err('cycle_days'), 'hint')} type="number" inputMode="numeric" value={cycleDays} onInput={(e) => setCycleDays(value(e))} />
              </Field>
            ) : null}
            <Field id="subscriber-due-day" label="Day of the month due" hint="Optional, 1 to 31; a short month uses its last day." error={err('due_day')}>
              <input {...described('subscriber-due-day', err('due_day'), 'hint')} type="number" inputMode="numeric" value={dueDay} onInput={(e) => setDueDay(value(e))} />
            </Field>
          </div>
          <Field id="subscriber-start" label="First payment due" hint="Empty: today in the workspace's time zone." error={err('start_date')}>
            <input {...described('subscriber-start', err('start_date'), 'hint')} type="date" value={startDate} onInput={(e) => setStartDate(value(e))} />
          </Field>
        </fieldset>
        <FormFoot problem={errors.general} busy={submit.busy} submit="Add subscriber" cancelTo={`/w/${ws}/dues`} />
      </form>
    </>
  );
}
