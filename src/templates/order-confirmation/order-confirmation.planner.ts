import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { ORDER_PLACED_V1, type OrderPlacedV1 } from '../../contracts/order-placed.v1';
import { CampaignTemplate, type LocalisedCopy } from '../campaign.template';
import { Planner, type CampaignAction } from '../planner';
import { formatDate, formatMoney, readerLocale, readerTimeZone } from '../reader-format';

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

/** The copy a customer reads, and how its money and dates are written. */
interface Reading {
  copy: LocalisedCopy;
  /** Formats money and dates: the customer's own tag (`de-AT`), or the copy's when it fell back. */
  locale: string;
  zone: string;
  zoneFellBack: boolean;
}

/**
 * Confirms an order to its customer, in the customer's locale: money in the order's currency
 * and the date on the customer's calendar, as their locale writes them. The order's own values
 * (id, total, items) are recipient attributes, so confirmations of many orders in one locale
 * share one request. The items are plain text, one line each; the body lays the lines out.
 */
@Injectable()
@Planner()
export class OrderConfirmationPlanner implements Planner<OrderPlacedV1> {
  readonly name = 'order-confirmation';
  /** The customer needs it for the order they placed. */
  readonly category = 'transactional' as const;
  readonly eventType = ORDER_PLACED_V1;
  private readonly template: CampaignTemplate<(typeof ORDER_ATTRIBUTES)[number]>;
  /** `TEMPLATE_TIME_ZONE`: the zone of a customer whose event names none, or none known here. */
  private readonly timeZone: string;

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
    this.timeZone = config.templates.timeZone;
  }

  plan(event: OrderPlacedV1): CampaignAction {
    const { customer, orderId, total, currency, items, placedAt } = event.data;
    const name = [customer.firstName, customer.lastName].filter(Boolean).join(' ');
    const reading = this.readingFor(customer.locale, customer.timeZone);
    const money = (amount: string) => formatMoney(amount, currency, reading.locale);
    return {
      kind: 'campaign',
      ...reading.copy,
      ...(reading.zoneFellBack ? { timeZoneFallback: true } : {}),
      recipients: [
        {
          name,
          email: customer.email,
          attributes: this.template.attributes({
            FIRST_NAME: customer.firstName,
            ORDER_ID: orderId,
            TOTAL: money(total),
            CURRENCY: currency,
            PLACED_AT: formatDate(placedAt, reading.locale, reading.zone),
            ITEM_COUNT: String(items.reduce((n, item) => n + item.quantity, 0)),
            ITEMS: items.map((i) => `${i.quantity} × ${i.name} — ${money(i.unitPrice)}`).join('\n'),
          }),
        },
      ],
    };
  }

  /**
   * The copy for the customer's locale, and the locale and zone to write money and dates in.
   * Numbers follow the customer's own tag only when their copy was found from it, so that they
   * never read in another language than the text around them.
   */
  private readingFor(locale: string | undefined, timeZone: string | undefined): Reading {
    const copy = this.template.copyFor(locale);
    const formatIn = copy.localeFallback ? copy.locale : readerLocale(locale, copy.locale).locale;
    const zone = readerTimeZone(timeZone, this.timeZone);
    return { copy, locale: formatIn, zone: zone.zone, zoneFellBack: zone.fellBack };
  }
}
