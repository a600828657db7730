import type { INestApplication } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import { startApp } from '../src/app';
import { loadConfig } from '../src/config/config.loader';
import type { EmailCampaignSentV1 } from '../src/contracts/email-campaign-sent.v1';
import { SandboxServer } from '../src/sandbox/sandbox.server';
import {
  TopicCollector,
  createTopics,
  produce,
  testBrokers,
  testKafka,
  uniqueName,
  waitFor,
} from './support/kafka-helpers';

jest.setTimeout(90_000);

describe('walking skeleton: user.signed_up.v1 → campaign send → email.campaign.sent.v1', () => {
  const relayToken = 'relay-key-for-tests';
  const apiKey = 'contacts-key-for-tests';
  let sandbox: SandboxServer;
  let app: INestApplication;
  let kafka: Kafka;
  let collector: TopicCollector;
  const topics = {
    in: uniqueName('user.signed_up.v1'),
    sent: uniqueName('email.campaign.sent.v1'),
    failed: uniqueName('email.dispatch.failed.v1'),
    dlq: uniqueName('mailbridge.dead-letter.v1'),
  };

  beforeAll(async () => {
    sandbox = new SandboxServer({ relayAccessToken: relayToken, apiKey });
    const url = await sandbox.listen(0);
    kafka = testKafka();
    const groupId = uniqueName('mailbridge');
    await createTopics(kafka, Object.values(topics), 3, [groupId]);
    const config = loadConfig({
      KAFKA_BROKERS: testBrokers().join(','),
      KAFKA_GROUP_ID: groupId,
      // The topics are new: from the start is exactly what was published for this test.
      CONSUMER_START_FROM: 'earliest',
      TOPIC_USER_SIGNED_UP: topics.in,
      TOPIC_CAMPAIGN_SENT: topics.sent,
      TOPIC_DISPATCH_FAILED: topics.failed,
      TOPIC_DEAD_LETTER: topics.dlq,
      TOPIC_ORDER_PLACED: uniqueName('order.placed.v1'),
      TOPIC_CAMPAIGN_REQUESTED: uniqueName('email.campaign.requested.v1'),
      TOPIC_CONTACT_LIST_REQUESTED: uniqueName('email.contact_list.requested.v1'),
      TOPIC_CONTACT_LIST_CREATED: uniqueName('email.contact_list.created.v1'),
      KAFKA_CREATE_TOPICS: 'true',
      VENDOR_RELAY_BASE_URL: `${url}/relay/v1`,
      VENDOR_BASE_URL: `${url}/v1`,
      VENDOR_RELAY_ACCESS_TOKEN: relayToken,
      VENDOR_API_KEY: apiKey,
      SUPPRESSION_HASH_KEY: 'suppression-hash-key-for-tests-only-32',
      SENDER_FROM_EMAIL: 'hello@shop.example',
      SENDER_FROM_NAME: 'Example Shop',
      SENDER_REPLY_TO_EMAIL: 'support@shop.example',
      HTTP_PORT: '0',
      LOG_LEVEL: 'warn',
    });
    app = await startApp(config);
    collector = await new TopicCollector(kafka).start([topics.sent, topics.failed, topics.dlq]);
  });

  afterAll(async () => {
    await collector?.stop();
    await app?.close();
    await sandbox?.close();
  });

  it('sends the welcome campaign as the interface shapes it and publishes the requestId', async () => {
    const eventId = uniqueName('evt-signup');
    const event = {
      id: eventId,
      type: 'user.signed_up.v1',
      time: '2026-11-21T10:00:00Z',
      source: 'accounts',
      data: { userId: 'u-42', email: 'ada@example.com', name: 'Ada Lovelace', plan: 'pro' },
    };
    await produce(kafka, topics.in, [
      {
        key: 'u-42',
        value: JSON.stringify(event),
        headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
      },
    ]);

    const [result] = await waitFor(
      () => {
        const sent = collector.results<EmailCampaignSentV1>(topics.sent);
        return sent.length > 0 ? sent : undefined;
      },
      { what: 'email.campaign.sent.v1' },
    );

    expect(sandbox.requests).toHaveLength(1);
    const request = sandbox.requests[0];
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/relay/v1/email/campaign');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['accept']).toBe('application/json');
    expect(request.headers['x-relay-access-token']).toBe(relayToken);
    expect(request.headers['x-api-key']).toBeUndefined();
    expect(request.body).toEqual({
      subject: 'Welcome to Example Shop, {{FIRST_NAME}}',
      body: expect.stringContaining('{{FIRST_NAME}}') as string,
      preview: 'Your Example Shop account is ready.',
      campaignId: 'welcome-v1',
      sender: {
        from: { name: 'Example Shop', email: 'hello@shop.example' },
        replyTo: { name: 'Example Shop', email: 'support@shop.example' },
      },
      recipients: {
        to: [
          {
            name: 'Ada Lovelace',
            email: 'ada@example.com',
            attributes: {
              FIRST_NAME: 'Ada',
              FULL_NAME: 'Ada Lovelace',
              PLAN: 'pro',
              USER_ID: 'u-42',
            },
          },
        ],
      },
      disableTrackingLinks: false,
    });

    const vendorResponse = request.response as { requestId: string; message: string };
    expect(result).toMatchObject({
      type: 'email.campaign.sent.v1',
      source: 'mailbridge',
      sourceeventid: eventId,
      data: {
        sourceEventId: eventId,
        sourceEventType: 'user.signed_up.v1',
        template: 'welcome',
        requestId: vendorResponse.requestId,
        requestIds: [vendorResponse.requestId],
        message: vendorResponse.message,
        campaignId: 'welcome-v1',
        recipientCount: 1,
        batchRecipientCount: 1,
      },
    });
    const record = collector.messages.find((m) => m.topic === topics.sent)!;
    expect(record.key?.toString()).toBe('u-42');
    expect(record.headers?.traceparent?.toString()).toBe(
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    );
  });

  it('reports ready once the consumer joined its group', async () => {
    const port = (
      app.getHttpServer() as import('node:http').Server
    ).address() as import('node:net').AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port.port}/health/ready`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready' });
  });
});
