import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { ORDER_PLACED_V1, type OrderPlacedV1 } from '../../contracts/order-placed.v1';
import { CampaignTemplate } from '../campaign.template';
import { Planner, type CampaignAction } from '../planner';

/** The attributes a confirmation carries, the keys its copies' `{{KEY}}` may name. */
const ORDER_ATTRIBUTES = [
  'FIRST_NAME',
  'ORDER_ID',
  'TOTAL',
  'CURRENCY',
  'PLACED_AT',
  'ITEM_COUNT',
  'ITEMS',
] as const;

/**
 * Confirms an order to its customer. The order's own values (id, total, items) are recipient
 * attributes, so confirmations of many orders share one request. The items are plain text, one
 * line each; the body lays the lines out.
 */
@Injectable()
@Planner()
export class OrderConfirmationPlanner implements Planner<OrderPlacedV1> {
  readonly name = 'order-confirmation';
  readonly eventType = ORDER_PLACED_V1;
  private readonly template: CampaignTemplate<(typeof ORDER_ATTRIBUTES)[number]>;

  constructor(config: AppConfig) {
    this.template = new CampaignTemplate(
      {
        dir: __dirname,
        name: 'order-confirmation',
        campaignId: 'order-confirmation-v1',
        attributeKeys: ORDER_ATTRIBUTES,
      },
      config,
    );
  }

  plan(event: OrderPlacedV1): CampaignAction {
    const { customer, orderId, total, currency, items, placedAt } = event.data;
    const name = [customer.firstName, customer.lastName].filter(Boolean).join(' ');
    return {
      kind: 'campaign',
      ...this.template.copyFor(undefined),
      recipients: [
        {
          name,
          email: customer.email,
          attributes: this.template.attributes({
            FIRST_NAME: customer.firstName,
            ORDER_ID: orderId,
            TOTAL: total,
            CURRENCY: currency,
            PLACED_AT: placedAt.slice(0, 10),
            ITEM_COUNT: String(items.reduce((n, item) => n + item.quantity, 0)),
            ITEMS: items
              .map((i) => `${i.quantity} × ${i.name} — ${i.unitPrice} ${currency}`)
              .join('\n'),
          }),
        },
      ],
    };
  }
}
