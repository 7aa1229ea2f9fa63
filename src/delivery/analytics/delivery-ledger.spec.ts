import { isLedgerDays } from './delivery-ledger';
import { LEDGER_DEFAULT_DAYS, LEDGER_MAX_DAYS, parseLedgerDays } from './delivery-ledger.constants';

describe('the delivery ledger’s days (docs/dashboard.md#delivery-ledger)', () => {
  it('defaults to 30 and reads 1 to 90 written as plain decimal digits', () => {
    expect(parseLedgerDays(undefined)).toBe(LEDGER_DEFAULT_DAYS);
    expect(LEDGER_DEFAULT_DAYS).toBe(30);
    expect(parseLedgerDays('1')).toBe(1);
    expect(parseLedgerDays('7')).toBe(7);
    expect(parseLedgerDays('90')).toBe(LEDGER_MAX_DAYS);
  });

  it.each(['', '0', '91', '99', '100', '-1', '+5', '05', '5.0', '1e1', ' 5', '5 ', 'abc', '0x10'])(
    'refuses %j',
    (value) => {
      expect(parseLedgerDays(value)).toBeNull();
    },
  );

  it('tells a number of days a ledger may cover', () => {
    expect([1, 30, 90].every(isLedgerDays)).toBe(true);
    expect([0, 91, 1.5, -3, Number.NaN, Infinity].some(isLedgerDays)).toBe(false);
  });
});
