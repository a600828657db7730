import { DEFAULT_RATE, parseRedriveOptions, RedriveUsageError } from './redrive-options';

describe('parseRedriveOptions', () => {
  it('reads filters, repeated or comma-separated, and times as RFC 3339 or epoch ms', () => {
    const options = parseRedriveOptions([
      '--code',
      'OVERSIZED,INVALID',
      '--code',
      'UNKNOWN_TYPE',
      '--topic',
      'user.signed_up.v1',
      '--since',
      '2026-11-22T10:00:00Z',
      '--until',
      '1795384800000',
      '--rate',
      '5',
    ]);
    expect(options).toMatchObject({
      codes: ['OVERSIZED', 'INVALID', 'UNKNOWN_TYPE'],
      topics: ['user.signed_up.v1'],
      since: Date.UTC(2026, 10, 22, 10),
      until: 1795384800000,
      rate: 5,
      dryRun: false,
    });
  });

  it('has a default rate, and needs no code for a dry run', () => {
    expect(parseRedriveOptions(['--dry-run'])).toMatchObject({
      dryRun: true,
      codes: [],
      rate: DEFAULT_RATE,
    });
  });

  it.each([
    [[], '--code is required to redrive'],
    [['--code', 'X', '--rate', '0'], '--rate must be a number above 0'],
    [['--code', 'X', '--rate', 'fast'], '--rate must be a number above 0'],
    [['--code', 'X', '--since', 'yesterday'], '--since must be an RFC 3339 time'],
    [['--code', 'X', '--until', '2026-11-22T10:00:00'], '--until must be an RFC 3339 time'],
    [['--code', 'X', '--since', '2000', '--until', '1000'], '--since must be before --until'],
    [['--code', 'X', '--show', '1.5'], '--show must be a whole number'],
    [['--code', 'X', '--dryrun'], "Unknown option '--dryrun'"],
    [['--code', 'X', 'extra'], 'extra'],
  ])('refuses %j with a message that says what is wrong', (argv, message) => {
    expect(() => parseRedriveOptions(argv)).toThrow(RedriveUsageError);
    expect(() => parseRedriveOptions(argv)).toThrow(message);
  });
});
