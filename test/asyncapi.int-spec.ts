import type { INestApplication } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Parser } from '@asyncapi/parser';
import { PipelineFixture } from './support/service-harness';

jest.setTimeout(180_000);

interface Doc {
  channels: Record<string, { address: string; description: string }>;
}

describe('GET /asyncapi.json on a running service', () => {
  const fixture = new PipelineFixture();
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    await fixture.start();
    app = await fixture.startService();
    const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
    url = `http://127.0.0.1:${port}/asyncapi.json`;
  });
  afterAll(() => fixture.stop());

  it('serves the committed document, with the topic names the service is configured with', async () => {
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const text = await response.text();
    const served = JSON.parse(text) as Doc;

    const committed = JSON.parse(
      readFileSync(join(__dirname, '../asyncapi/asyncapi.json'), 'utf8'),
    ) as Doc;
    const topics = fixture.topics as Record<string, string>;
    for (const [id, channel] of Object.entries(committed.channels)) {
      // The description names the setting (`Topic set by TOPIC_…`); the address is its value.
      const variable = /set by (TOPIC_[A-Z_]+)/.exec(channel.description)![1];
      expect([id, served.channels[id].address]).toEqual([id, topics[variable]]);
      channel.address = topics[variable];
    }
    expect(served).toEqual(committed);

    const { diagnostics } = await new Parser().parse(text);
    // Only the hint that AsyncAPI 3.1 exists (the unit spec says why 3.0).
    expect(diagnostics.map((d) => d.code)).toEqual(['asyncapi-latest-version']);
  });
});
