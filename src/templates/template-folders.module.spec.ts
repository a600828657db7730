import { join } from 'node:path';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { plainToInstance } from 'class-transformer';
import { ConfigModule } from '../config/config.module';
import { loadConfig } from '../config/config.loader';
import { OrderPlacedV1 } from '../contracts/order-placed.v1';
import { PlannerRegistry } from './planner.registry';
import { TemplateFoldersModule } from './template-folders.module';

const FIXTURES = join(__dirname, '../../test/fixtures/templates');
const config = loadConfig({
  MAILBRIDGE_MODE: 'local',
  SENDER_FROM_NAME: 'Shop & Co',
  SENDER_FROM_EMAIL: 'hello@shop.example',
});

/** What `TemplatesModule` is, over another folder: the same scan, the same registry. */
async function registryOver(folder: string) {
  const moduleRef = await Test.createTestingModule({
    imports: [
      ConfigModule.forRoot(config),
      DiscoveryModule,
      TemplateFoldersModule.scan(join(FIXTURES, folder)),
    ],
    providers: [PlannerRegistry],
  }).compile();
  await moduleRef.init();
  return moduleRef.get(PlannerRegistry);
}

const order = plainToInstance(OrderPlacedV1, {
  id: 'evt-1',
  type: 'order.placed.v1',
  time: '2026-11-21T10:00:42Z',
  data: {
    orderId: 'Order#1',
    customer: { email: 'bo@example.com', firstName: 'Bo <b>' },
    total: '10',
    currency: 'EUR',
    placedAt: '2026-11-21T10:00:42Z',
    items: [{ sku: 'A', name: 'Mug', quantity: 1, unitPrice: '10' }],
  },
});

describe(TemplateFoldersModule.name, () => {
  it('makes a new folder a working template, with nothing else edited', async () => {
    // test/fixtures/templates/sample/review-request/ holds a module, a planner and three .eta
    // files, as a new folder of src/templates/ would; no other file names it.
    const registry = await registryOver('sample');
    const [planner] = registry.forEventType('order.placed.v1');
    expect(planner.name).toBe('review-request');
    expect(planner.plan(order)).toEqual({
      kind: 'campaign',
      batchKey: 'review-request:en',
      locale: 'en',
      content: expect.objectContaining({
        subject: 'How was order {{ORDER_ID}}, {{FIRST_NAME}}?',
        preview: 'Tell Shop & Co what you think.',
        body: expect.stringContaining('A short review helps Shop &amp; Co') as unknown,
        campaignId: 'review-request-v1',
      }) as unknown,
      recipients: [
        {
          name: 'Bo <b>',
          email: 'bo@example.com',
          attributes: { FIRST_NAME: 'Bo <b>', ORDER_ID: 'Order#1' },
        },
      ],
    });
  });

  it('refuses two folders whose planners share a name, naming both folders', async () => {
    await expect(registryOver('duplicate-names')).rejects.toThrow(
      "two planners are named 'twin': duplicate-names/a-first (AFirstPlanner) and duplicate-names/b-second (BSecondPlanner)",
    );
  });

  it('names a folder that has no module file', async () => {
    await expect(registryOver('no-module')).rejects.toThrow(
      'template folder no-module/forgotten/ must hold exactly one <name>.module.ts that provides its @Planner(); it holds none',
    );
  });

  it('names a folder whose module provides no planner', async () => {
    await expect(registryOver('no-planner')).rejects.toThrow(
      'template folder no-planner/helpers-only/: HelpersOnlyModule provides no @Planner() provider',
    );
  });

  it('stops start-up on a broken locale variant, naming its file', async () => {
    // broken-locale/greeting/greeting.body.de.eta names {{NICKNAME}}, which no planner provides.
    await expect(registryOver('broken-locale')).rejects.toThrow(
      'template file broken-locale/greeting/greeting.body.de.eta uses {{NICKNAME}}, which its planner does not provide (attributeKeys)',
    );
  });
});
