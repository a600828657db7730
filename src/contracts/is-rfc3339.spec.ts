import { isRfc3339 } from './is-rfc3339';

/** The check as it was written before, on `Date`: the reference the arithmetic must agree with. */
function byDate(value: string): boolean {
  const m =
    /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/i.exec(
      value,
    );
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  const realDay = date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  const offsetOk = m[9] === undefined || (Number(m[9]) <= 23 && Number(m[10]) <= 59);
  return realDay && hour <= 23 && minute <= 59 && second <= 60 && offsetOk;
}

const two = (n: number) => String(n).padStart(2, '0');

describe('isRfc3339', () => {
  it('agrees with the Date-based check on every day and edge of four centuries', () => {
    const offsets = ['Z', 'z', '+00:00', '-23:59', '+24:00', '+05:60'];
    const times = [
      '00:00:00',
      '23:59:60',
      '24:00:00',
      '12:60:00',
      '12:00:61',
      '09:30:00.123456789',
    ];
    let checked = 0;
    for (const year of [1600, 1700, 1899, 1900, 1996, 2000, 2023, 2024, 2100, 9999]) {
      for (let month = 0; month <= 13; month++) {
        for (let day = 0; day <= 32; day++) {
          const time = times[(year + month + day) % times.length];
          const offset = offsets[(month * 7 + day) % offsets.length];
          const value = `${year}-${two(month)}-${two(day)}T${time}${offset}`;
          expect([value, isRfc3339(value)]).toEqual([value, byDate(value)]);
          checked += 1;
        }
      }
    }
    expect(checked).toBe(10 * 14 * 33);
  });

  it.each([
    ['2024-02-29T00:00:00Z', true],
    ['2023-02-29T00:00:00Z', false],
    ['1900-02-29T00:00:00Z', false],
    ['2000-02-29T00:00:00Z', true],
    ['2026-04-31T00:00:00Z', false],
    ['2026-11-21T10:00:00.123+02:00', true],
    ['2026-11-21T10:00:00', false],
    ['2026-11-21', false],
    ['2026-W47', false],
  ])('%s: %s', (value, valid) => expect(isRfc3339(value)).toBe(valid));

  it('reads year 0000 by the Gregorian rule, as RFC 3339 does: its 29 February exists', () => {
    // Date.UTC reads years 0-99 as 1900-1999, so the Date-based check refused this one day.
    expect(isRfc3339('0000-02-29T00:00:00Z')).toBe(true);
    expect(isRfc3339('0001-02-29T00:00:00Z')).toBe(false);
  });

  it('refuses what is not a string', () => {
    expect(isRfc3339(20261121)).toBe(false);
    expect(isRfc3339(undefined)).toBe(false);
  });
});
