import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { logLevel } from 'kafkajs';
import type { KafkaSasl } from '../config/kafka-security';
import { logCreator, saslOptions } from './kafka.provider';

describe(saslOptions.name, () => {
  it('passes PLAIN and SCRAM settings to kafkajs as they are, and none without a mechanism', () => {
    const scram: KafkaSasl = { mechanism: 'scram-sha-512', username: 'u', password: 'p' };
    expect(saslOptions(scram)).toEqual(scram);
    expect(saslOptions(undefined)).toBeUndefined();
  });

  it('gives OAUTHBEARER a token provider, one per configuration for all its clients', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'mailbridge-sasl-')), 'token');
    writeFileSync(path, 'token-from-file');
    const sasl: KafkaSasl = { mechanism: 'oauthbearer', tokenFile: path };
    const first = saslOptions(sasl);
    const second = saslOptions(sasl);
    if (first?.mechanism !== 'oauthbearer' || second?.mechanism !== 'oauthbearer') {
      throw new Error('expected OAUTHBEARER options');
    }
    expect(second.oauthBearerProvider).toBe(first.oauthBearerProvider);
    await expect(first.oauthBearerProvider()).resolves.toEqual({ value: 'token-from-file' });
    const endpoint: KafkaSasl = {
      mechanism: 'oauthbearer',
      tokenEndpoint: {
        url: 'https://idp.example/token',
        clientId: 'c',
        clientSecret: 's',
        clientAuth: 'basic',
      },
    };
    expect(saslOptions(endpoint)).toMatchObject({
      mechanism: 'oauthbearer',
      oauthBearerProvider: expect.any(Function) as unknown,
    });
  });
});

describe('logCreator', () => {
  afterEach(() => jest.restoreAllMocks());

  function entry(level: logLevel, message: string) {
    const log = { timestamp: '2026-11-22T00:00:00Z', logger: 'kafkajs', message, broker: 'b:9092' };
    return { namespace: 'Connection', level, label: 'X', log };
  }

  it('passes kafkajs lines on with their fields as fields, without its own time', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    logCreator()(entry(logLevel.WARN, 'slow'));
    expect(warn).toHaveBeenCalledWith({ msg: 'slow', broker: 'b:9092' });
  });

  it("writes the broker's error answers at debug, a send kafkajs retries at warn", () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const debug = jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
    logCreator()(entry(logLevel.ERROR, 'Response GroupCoordinator(key: 10, version: 2)'));
    logCreator()(entry(logLevel.ERROR, 'Connection error: connect ECONNREFUSED'));
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const retried = entry(logLevel.ERROR, 'Failed to send messages: not the leader');
    logCreator()({ ...retried, log: { ...retried.log, retryCount: 0, retryTime: 351 } });
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ retryTime: 351 }));
    expect(debug).toHaveBeenCalledWith(
      expect.objectContaining({ msg: 'Response GroupCoordinator(key: 10, version: 2)' }),
    );
    expect(error).toHaveBeenCalledTimes(1);
    expect(error).toHaveBeenCalledWith(
      expect.objectContaining({ msg: 'Connection error: connect ECONNREFUSED' }),
    );
  });
});
