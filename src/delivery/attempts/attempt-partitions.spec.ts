import { DAY_MS, missingDays, partitionName, utcDay } from './attempt-partitions';

const day = (iso: string) => new Date(`${iso}T00:00:00Z`);

describe('attempt partitions (docs/operations.md#retention)', () => {
  it('names a partition by its UTC day', () => {
    expect(partitionName(day('2026-11-25'))).toBe('webhook_delivery_attempt_p20261125');
  });

  it('finds the UTC day of a time, whatever the hour', () => {
    expect(utcDay(Date.parse('2026-11-25T23:59:59.999Z'))).toEqual(day('2026-11-25'));
    expect(utcDay(Date.parse('2026-11-26T00:00:00.000Z'))).toEqual(day('2026-11-26'));
  });

  it('lists the days no partition covers, a history partition from MINVALUE included', () => {
    const partitions = [
      { name: 'webhook_delivery_attempt_history', from: null, to: day('2026-11-24') },
      {
        name: 'webhook_delivery_attempt_p20261125',
        from: day('2026-11-25'),
        to: new Date(day('2026-11-25').getTime() + DAY_MS),
      },
    ];
    expect(missingDays(partitions, day('2026-11-20'), day('2026-11-27'))).toEqual([
      day('2026-11-24'),
      day('2026-11-26'),
      day('2026-11-27'),
    ]);
    expect(missingDays(partitions, day('2026-11-25'), day('2026-11-25'))).toEqual([]);
  });
});
