import type { InboundEvent } from '../contracts/inbound-contracts';
import { MetricsService } from '../metrics/metrics.service';
import type { CampaignAction, Planner } from '../templates/planner';
import type { PlannerRegistry } from '../templates/planner.registry';
import type { ActionRunner } from './action.runner';
import type { SuppressionCommands } from './suppression.commands';
import type { AppConfig } from '../config/app-config';
import { UnsubscribeLinks } from '../unsubscribe/unsubscribe-links';
import { randomBytes } from 'node:crypto';
import { UnsubscribeTokens } from '../unsubscribe/unsubscribe-token';
import type { PlannedAction } from './action.runner';
import { DispatchService } from './dispatch.service';

const event = { id: 'evt-1', type: 'user.signed_up.v1' } as unknown as InboundEvent;

function campaign(extra: Partial<CampaignAction>): CampaignAction {
  return {
    kind: 'campaign',
    batchKey: 'welcome:en',
    content: { subject: 's', body: 'b' },
    recipients: [{ email: 'ada@example.com' }],
    locale: 'en',
    ...extra,
  };
}

function serviceWith(action: CampaignAction, metrics: MetricsService): DispatchService {
  const planner: Planner = {
    name: 'welcome',
    eventType: 'user.signed_up.v1',
    category: 'transactional',
    plan: () => action,
  };
  const registry = { forEventType: () => [planner] } as unknown as PlannerRegistry;
  return new DispatchService(
    registry,
    {} as ActionRunner,
    metrics,
    {} as SuppressionCommands,
    new UnsubscribeLinks(undefined, { unsubscribe: { baseUrl: '' } } as AppConfig),
  );
}

async function fallbacks(metrics: MetricsService): Promise<unknown[]> {
  const family = await metrics.registry
    .getSingleMetric('mailbridge_template_locale_fallbacks_total')!
    .get();
  return family.values.map((v) => ({ ...v.labels, value: v.value }));
}

describe(DispatchService.name, () => {
  it('counts a plan that fell back to the default copy, by template and reason', async () => {
    const metrics = new MetricsService();
    const planned = serviceWith(campaign({ localeFallback: 'unknown' }), metrics).plan(event);

    expect(planned).toEqual([expect.objectContaining({ action: expect.anything() as unknown })]);
    expect(await fallbacks(metrics)).toEqual([
      { template: 'welcome', reason: 'unknown', value: 1 },
    ]);
  });

  it('counts a plan whose dates show in the default zone, by template', async () => {
    const metrics = new MetricsService();
    serviceWith(campaign({ timeZoneFallback: true }), metrics).plan(event);

    const family = await metrics.timeZoneFallbacks.get();
    expect(family.values.map((v) => ({ ...v.labels, value: v.value }))).toEqual([
      { template: 'welcome', value: 1 },
    ]);
  });

  it('counts nothing for a plan in the locale it asked for, or without one', async () => {
    const metrics = new MetricsService();
    serviceWith(campaign({ locale: 'de', batchKey: 'welcome:de' }), metrics).plan(event);
    serviceWith(campaign({}), metrics).plan(event);

    expect(await fallbacks(metrics)).toEqual([]);
  });

  describe('one-click unsubscribe links', () => {
    const tokens = new UnsubscribeTokens([randomBytes(32).toString('base64')], 90 * 86_400);
    const config = { unsubscribe: { baseUrl: 'https://mail.example.com' } } as AppConfig;
    const linksOf = (category: Planner['category']) => {
      const planner: Planner = {
        name: 'news',
        eventType: 'email.campaign.requested.v1',
        category,
        plan: () => campaign({}),
      };
      const service = new DispatchService(
        { forEventType: () => [planner] } as unknown as PlannerRegistry,
        {} as ActionRunner,
        new MetricsService(),
        {} as SuppressionCommands,
        new UnsubscribeLinks(tokens, config),
      );
      const [{ action }] = service.plan(event) as PlannedAction[];
      return (action as CampaignAction).recipients.map((r) => r.attributes?.UNSUBSCRIBE_URL);
    };

    it('gives every recipient of a marketing campaign its own link', () => {
      const [link] = linksOf('marketing');
      expect(link).toMatch(/^https:\/\/mail\.example\.com\/unsubscribe\//);
      const token = link!.slice('https://mail.example.com/unsubscribe/'.length);
      expect(tokens.open(token)).toMatchObject({ ok: true, claim: { address: 'ada@example.com' } });
    });

    it('gives none to a transactional campaign', () => {
      expect(linksOf('transactional')).toEqual([undefined]);
    });
  });
});
