import { setupInputProblem } from '../../../src/dues/inputRules';
import { formatRupees, fromPaise, isWholePaise, toPaise } from '../../../src/dues/money';
import type { DueDoc, SubscriberSetupDoc } from '../../../src/dues/store';
import { countTotals } from '../../../src/dues/totals';

describe('dues money: whole paise (src/dues/money.ts)', () => {
  it.each([100.12, 0.01, 0.1, 0.29, 1, 1500, 10_000_000, 9_999_999.99])('%p rupees is whole paise', (rupees) => {
    expect(isWholePaise(rupees)).toBe(true);
    expect(fromPaise(toPaise(rupees))).toBe(rupees);
  });

  it.each([0.001, 100.123, 1e-9, 100.000000001, 0.005, Number.NaN, Number.POSITIVE_INFINITY, 1e300])('%p rupees is not', (rupees) => {
    expect(isWholePaise(rupees)).toBe(false);
  });

  it('converts to integer paise without drift', () => {
    expect(toPaise(0.29)).toBe(29);
    expect(toPaise(100.12)).toBe(10012);
    expect(toPaise(9_999_999.99)).toBe(999_999_999);
    // A record from before the rule: rounded to the nearest paisa.
    expect(toPaise(1e-9)).toBe(0);
  });

  it('formats for a message: Indian grouping, two decimals only when there are paise', () => {
    expect(formatRupees(1000)).toBe('1,000');
    expect(formatRupees(150000)).toBe('1,50,000');
    expect(formatRupees(100.1)).toBe('100.10');
    expect(formatRupees(0.5)).toBe('0.50');
    expect(formatRupees(1e-9)).toBe('0');
  });

  it('totals are added in paise: three 0.1 dues owe 0.3, not 0.30000000000000004', () => {
    const open = (amount: number) => ({ status: 'scheduled', amount, due_date: '2031-01-01' }) as DueDoc;
    const paid = (amount: number) => ({ status: 'paid', amount: 5, paid_amount: amount, paid_at: new Date(0), due_date: '2031-01-01' }) as DueDoc;
    expect(countTotals([open(0.1), open(0.1), open(0.1), paid(0.1), paid(0.2)])).toMatchObject({ outstanding_total: 0.3, collected_total: 0.3, dues_paid: 2 });
  });
});

describe('a recorded setup the rules refuse (src/dues/inputRules.ts)', () => {
  const input: SubscriberSetupDoc['input'] = { name: 'A', phone: '+919812345678', email: null, plan_name: 'P', amount: 500, cycle_unit: 'monthly', cycle_days: null, due_day: null, start_date: '2031-01-01' };

  it('none for a plan within them', () => {
    expect(setupInputProblem(input)).toBeNull();
    expect(setupInputProblem({ ...input, start_date: '1970-01-01' })).toBeNull();
    expect(setupInputProblem({ ...input, start_date: '2999-12-31', amount: 0.01 })).toBeNull();
  });

  it('a start date the cycle math cannot carry, or an amount not in whole paise', () => {
    expect(setupInputProblem({ ...input, start_date: '9999-12-31' })).toBe('start_date 9999-12-31: expected a start date from 1970-01-01 to 2999-12-31');
    expect(setupInputProblem({ ...input, start_date: '1969-12-31' })).toBe('start_date 1969-12-31: expected a start date from 1970-01-01 to 2999-12-31');
    expect(setupInputProblem({ ...input, amount: 0.001 })).toBe('amount 0.001: expected rupees in whole paise: at most two decimals, at least 0.01');
    expect(setupInputProblem({ ...input, amount: 100.123 })).toBe('amount 100.123: expected rupees in whole paise: at most two decimals, at least 0.01');
  });
});
