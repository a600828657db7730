import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config.error';
import { loadConfig } from './config.loader';

const production = {
  KAFKA_BROKERS: 'kafka-1:9092',
  VENDOR_RELAY_ACCESS_TOKEN: 'relay-secret-value',
  VENDOR_API_KEY: 'api-secret-value',
  SENDER_FROM_EMAIL: 'hello@shop.example',
  SUPPRESSION_HASH_KEY: 'suppression-hash-key-secret-value-32',
};
const key = () => randomBytes(32).toString('base64');

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('the UNSUBSCRIBE_* settings', () => {
  it('leave one-click unsubscribe off in production without a key', () => {
    expect(loadConfig(production).unsubscribe).toMatchObject({ enabled: false, tokenKeys: [] });
  });

  it('read both keys from files, current first, and keep them out of logs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'unsubscribe-keys-'));
    const [current, previous] = [key(), key()];
    writeFileSync(join(dir, 'current'), `${current}\n`);
    writeFileSync(join(dir, 'previous'), previous);
    const config = loadConfig({
      ...production,
      UNSUBSCRIBE_TOKEN_KEY_FILE: join(dir, 'current'),
      UNSUBSCRIBE_TOKEN_PREVIOUS_KEY_FILE: join(dir, 'previous'),
      UNSUBSCRIBE_BASE_URL: 'https://mail.example.com/',
    });
    expect(config.unsubscribe.tokenKeys).toEqual([current, previous]);
    expect(config.unsubscribe.baseUrl).toBe('https://mail.example.com');
    const logged = JSON.stringify(config);
    expect(logged).not.toContain(current);
    expect(logged).not.toContain(previous);
    expect(config.secrets).toEqual(expect.arrayContaining(config.unsubscribe.tokenKeys));
  });

  it('ask for a base URL with a key in production, and refuse a key of the wrong size or a short life', () => {
    expect(problemsOf({ ...production, UNSUBSCRIBE_TOKEN_KEY: key() })).toEqual([
      'UNSUBSCRIBE_BASE_URL must be an http(s) URL',
    ]);
    const problems = problemsOf({
      ...production,
      UNSUBSCRIBE_TOKEN_KEY: 'c2hvcnQ=',
      UNSUBSCRIBE_BASE_URL: 'https://mail.example.com',
      UNSUBSCRIBE_TOKEN_TTL_DAYS: '30',
    });
    expect(problems.join('\n')).toMatch(/UNSUBSCRIBE_TOKEN_KEY must be 32 bytes in base64/);
    expect(problems.join('\n')).toMatch(/UNSUBSCRIBE_TOKEN_TTL_DAYS/);
    expect(problems.join('\n')).not.toContain('c2hvcnQ');
  });

  it('in local mode, link to the listener on loopback at its own port', () => {
    const config = loadConfig({ MAILBRIDGE_MODE: 'local', UNSUBSCRIBE_HTTP_PORT: '39577' });
    expect(config.unsubscribe).toMatchObject({
      enabled: true,
      baseUrl: 'http://127.0.0.1:39577',
      httpPort: 39577,
    });
  });
});
