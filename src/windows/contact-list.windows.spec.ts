import { ContactListWindows } from './contact-list.windows';

const at = (iso: string, lengthMs = 60_000) => ({
  start: new Date(iso),
  end: new Date(Date.parse(iso) + lengthMs),
});

describe(ContactListWindows.name, () => {
  // The clock reads 10:00:30; producers' clocks may run 30 s ahead.
  const now = Date.parse('2026-11-21T10:00:30Z');
  const windows = new ContactListWindows(
    { namePattern: 'new-customers-{window}', clockSkewMs: 30_000 },
    () => now,
  );

  it('names a window after its start, to the minute, and says when it ends', () => {
    expect(windows.choose(at('2026-11-21T09:58:00Z'))).toEqual({
      window: { name: 'new-customers-20261121T0958Z', end: Date.parse('2026-11-21T09:59:00Z') },
      present: { name: 'new-customers-20261121T1000Z', end: Date.parse('2026-11-21T10:01:00Z') },
    });
  });

  it('takes a window far ahead of its clock to be the current one, and one near as it is', () => {
    // An order "placed" at 12:00 would otherwise open a window due two hours from now.
    expect(windows.choose(at('2026-11-21T12:00:00Z')).window.name).toBe(
      'new-customers-20261121T1000Z',
    );
    expect(windows.choose(at('2026-11-21T10:01:00Z')).window.name).toBe(
      'new-customers-20261121T1001Z',
    );
  });

  it('names windows shorter than a minute to the second, so two of one minute never share a name', () => {
    const names = ['10:00:00', '10:00:10'].map(
      (t) => windows.choose(at(`2026-11-21T${t}Z`, 10_000)).window.name,
    );
    expect(names).toEqual(['new-customers-20261121T100000Z', 'new-customers-20261121T100010Z']);
  });

  it('chooses a day-long window by its start, due at its end a day later', () => {
    const day = windows.choose(at('2026-11-21T00:00:00Z', 86_400_000));
    expect(day.window).toEqual({
      name: 'new-customers-20261121T0000Z',
      end: Date.parse('2026-11-22T00:00:00Z'),
    });
  });

  it('names each of many windows, chosen in any order, as it names it alone', () => {
    const alone = (iso: string, lengthMs: number) =>
      new ContactListWindows({ namePattern: 'n-{window}', clockSkewMs: 30_000 }, () => now).choose(
        at(iso, lengthMs),
      );
    const shared = new ContactListWindows(
      { namePattern: 'n-{window}', clockSkewMs: 30_000 },
      () => now,
    );
    // A backlog's orders alternate between old windows and the present, at two window lengths,
    // over more windows than are kept at once.
    for (let round = 0; round < 3; round++) {
      for (let m = 0; m < 40; m++) {
        for (const length of [60_000, 10_000]) {
          const iso = new Date(Date.parse('2026-11-21T09:00:00Z') + m * length).toISOString();
          expect(shared.choose(at(iso, length))).toEqual(alone(iso, length));
        }
      }
    }
  });
});
