import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { ORDER_PLACED_V1, type OrderPlacedV1 } from '../../contracts/order-placed.v1';
import { Planner, type CampaignAction, type CampaignContent } from '../planner';
import { escapeHtml, renderCampaignContent } from '../template.renderer';

/**
 * Confirms an order to its customer. The order's own values (id, total, items) are recipient
 * attributes, so confirmations of many orders share one request.
 */
@Injectable()
@Planner()
export class OrderConfirmationPlanner implements Planner<OrderPlacedV1> {
  readonly name = 'order-confirmation';
  readonly eventType = ORDER_PLACED_V1;
  private readonly content: CampaignContent;

  constructor(config: AppConfig) {
    this.content = renderCampaignContent(
      __dirname,
      'order-confirmation',
      'order-confirmation-v1',
      config.sender,
    );
  }

  plan(event: OrderPlacedV1): CampaignAction {
    const { customer, orderId, total, currency, items, placedAt } = event.data;
    const name = [customer.firstName, customer.lastName].filter(Boolean).join(' ');
    return {
      kind: 'campaign',
      batchKey: this.name,
      content: this.content,
      recipients: [
        {
          name,
          email: customer.email,
          attributes: {
            FIRST_NAME: escapeHtml(customer.firstName),
            ORDER_ID: escapeHtml(orderId),
            TOTAL: escapeHtml(total),
            CURRENCY: escapeHtml(currency),
            PLACED_AT: escapeHtml(placedAt.slice(0, 10)),
            ITEM_COUNT: String(items.reduce((n, item) => n + item.quantity, 0)),
            ITEMS: items
              .map(
                (i) =>
                  `<li>${i.quantity} × ${escapeHtml(i.name)} — ${escapeHtml(i.unitPrice)} ${escapeHtml(currency)}</li>`,
              )
              .join(''),
          },
        },
      ],
    };
  }
}
