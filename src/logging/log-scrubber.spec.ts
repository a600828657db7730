import { LogScrubber } from './log-scrubber';

describe('LogScrubber', () => {
  const scrubber = new LogScrubber(['relay-token-123', 'api-key-xyz', '']);

  it('replaces every key the service holds, wherever it appears', () => {
    expect(scrubber.scrub('Authorization: TOKEN relay-token-123; api-key=api-key-xyz')).toBe(
      'Authorization: TOKEN [redacted]; api-key=[redacted]',
    );
  });

  it('keeps only the first character and the domain of an address', () => {
    expect(scrubber.scrub('rejected <jane.doe+tag@example.com>, "b@mail.example.org"')).toBe(
      'rejected <j***@example.com>, "b***@mail.example.org"',
    );
  });

  it('leaves text without keys or addresses as it is', () => {
    const line = 'consumer stopped @ offset 42';
    expect(scrubber.scrub(line)).toBe(line);
  });

  it('scrubs the strings of nested fields and errors, and leaves the input untouched', () => {
    const error = new Error('vendor said jane@example.com is invalid (api-key-xyz)');
    const fields = {
      recipients: ['ann@example.com'],
      vendor: { body: 'x relay-token-123' },
      error,
    };
    const scrubbed = scrubber.scrubFields(fields) as {
      recipients: string[];
      vendor: { body: string };
      error: Error;
    };
    expect(scrubbed.recipients).toEqual(['a***@example.com']);
    expect(scrubbed.vendor.body).toBe('x [redacted]');
    expect(scrubbed.error.message).toBe('vendor said j***@example.com is invalid ([redacted])');
    expect(scrubbed.error.stack).not.toContain('jane@example.com');
    expect(fields.recipients).toEqual(['ann@example.com']);
  });

  it('censors every field named like a key, whatever it holds and however deep', () => {
    const fields = {
      password: 'hunter2',
      sasl: { mechanism: 'plain', password: 12345 },
      request: { headers: { 'api-key': 'k', authorization: ['Bearer t'] } },
      vendor: { accessToken: { value: 'x' }, apiKey: 'y', token: 'z' },
      tokens: 3,
    };
    expect(scrubber.scrubFields(fields)).toEqual({
      password: '[redacted]',
      sasl: { mechanism: 'plain', password: '[redacted]' },
      request: { headers: { 'api-key': '[redacted]', authorization: '[redacted]' } },
      vendor: { accessToken: '[redacted]', apiKey: '[redacted]', token: '[redacted]' },
      tokens: 3,
    });
  });

  it('gives back fields with nothing to scrub as they are, and copies only what changes', () => {
    const clean = { eventId: 'e-1', partition: 3, requestIds: ['r-1', 'r-2'], nested: { a: 'b' } };
    expect(scrubber.scrubFields(clean)).toBe(clean);
    const mixed = {
      eventId: 'e-1',
      to: ['x@example.com', 'plain'],
      nested: { a: 'b' },
      token: 't',
    };
    const scrubbed = scrubber.scrubFields(mixed) as typeof mixed;
    expect(scrubbed).toEqual({
      eventId: 'e-1',
      to: ['x***@example.com', 'plain'],
      nested: { a: 'b' },
      token: '[redacted]',
    });
    expect(scrubbed).not.toBe(mixed);
    expect(scrubbed.nested).toBe(mixed.nested);
    expect(mixed).toEqual({
      eventId: 'e-1',
      to: ['x@example.com', 'plain'],
      nested: { a: 'b' },
      token: 't',
    });
  });
});
