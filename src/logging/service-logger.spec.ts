import { Writable } from 'node:stream';
import { createServiceLogger, isoTimeOncePerMillisecond } from './service-logger';

/** A logger writing JSON lines into an array. */
function capture(level: 'log' | 'debug' = 'log') {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const logger = createServiceLogger(
    { level, format: 'json', secrets: ['s3cret-key'], bufferMaxBytes: 1 << 20 },
    destination,
  );
  return { logger, lines };
}

describe('ServiceLogger', () => {
  it("writes Nest's (message, context) as a line with its level, time, name and context", () => {
    const { logger, lines } = capture();
    logger.log('consumer stopped', 'KafkaBatchServer');
    expect(lines).toEqual([
      {
        level: 'info',
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as string,
        pid: process.pid,
        hostname: expect.any(String) as string,
        name: 'mailbridge',
        context: 'KafkaBatchServer',
        msg: 'consumer stopped',
      },
    ]);
  });

  it('keeps the fields of an object message as fields of the line', () => {
    const { logger, lines } = capture();
    logger.warn({ msg: 'dead-lettered: INVALID', topic: 't', partition: 2, offset: '7' }, 'X');
    expect(lines[0]).toMatchObject({
      level: 'warn',
      context: 'X',
      msg: 'dead-lettered: INVALID',
      topic: 't',
      partition: 2,
      offset: '7',
    });
  });

  it("keeps the stack Nest passes with an error, and an Error's own", () => {
    const { logger, lines } = capture();
    logger.error('shutdown failed', 'Error: boom\n    at x', 'main');
    logger.error(new Error('broken'), 'main');
    expect(lines[0]).toMatchObject({ level: 'error', msg: 'shutdown failed', context: 'main' });
    expect(lines[0].stack).toContain('Error: boom');
    expect(lines[1]).toMatchObject({ msg: 'broken', err: { message: 'broken', type: 'Error' } });
  });

  it('maps LOG_LEVEL: debug lines only at debug, verbose at trace', () => {
    const quiet = capture('log');
    quiet.logger.debug('hidden');
    quiet.logger.verbose('hidden too');
    expect(quiet.lines).toEqual([]);
    const chatty = capture('debug');
    chatty.logger.debug('shown');
    chatty.logger.verbose('still hidden');
    expect(chatty.lines.map((l) => [l.level, l.msg])).toEqual([['debug', 'shown']]);
  });

  it('writes no key and no full address, in messages, fields or errors', () => {
    const { logger, lines } = capture();
    logger.warn('vendor refused jane@example.com with key s3cret-key');
    logger.log({
      msg: 'x',
      body: 'to ann@example.org',
      password: 'hunter2',
      nested: { token: 't' },
    });
    logger.error(new Error('s3cret-key rejected for bob@example.net'));
    // What Nest takes for the context is written by a child logger, outside pino's hook.
    logger.log('about', 'context with s3cret-key for carl@example.com');
    const text = JSON.stringify(lines);
    const secrets = ['s3cret-key', 'jane@example.com', 'ann@example.org', 'bob@example.net'];
    for (const secret of [...secrets, 'carl@example.com']) {
      expect(text).not.toContain(secret);
    }
    expect(lines[3].context).toBe('context with [redacted] for c***@example.com');
    expect(lines[0].msg).toBe('vendor refused j***@example.com with key [redacted]');
    expect(lines[1]).toMatchObject({ password: '[redacted]', nested: { token: '[redacted]' } });
    expect(text).not.toContain('hunter2');
  });
});

describe('isoTimeOncePerMillisecond', () => {
  it("writes pino's isoTime field, formatted again only when the millisecond changes", () => {
    let now = Date.UTC(2026, 10, 26, 10, 0, 0, 5);
    const time = isoTimeOncePerMillisecond(() => now);
    const first = time();
    expect(first).toBe(',"time":"2026-11-26T10:00:00.005Z"');
    expect(time()).toBe(first);
    now += 1;
    expect(time()).toBe(',"time":"2026-11-26T10:00:00.006Z"');
    expect(JSON.parse(`{"a":1${time()}}`)).toEqual({ a: 1, time: '2026-11-26T10:00:00.006Z' });
  });
});
