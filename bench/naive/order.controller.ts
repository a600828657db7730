import { Controller, Inject } from '@nestjs/common';
import { ClientKafka, EventPattern, Payload } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import type { OrderPlacedV1 } from '../../src/contracts/order-placed.v1';
import { naiveConfig, RESULTS_CLIENT } from './naive.config';
import { postJson } from './vendor-fetch';

/**
 * Orders, the newcomer's way: per event, add the customer to a contact list (a list of one) and
 * send the confirmation, then emit one result for each.
 */
@Controller()
export class OrderController {
  constructor(@Inject(RESULTS_CLIENT) private readonly results: ClientKafka) {}

  @EventPattern<string>(naiveConfig.topics.orderPlaced)
  async onOrderPlaced(@Payload() event: OrderPlacedV1): Promise<void> {
    const { orderId, customer, items, total, currency } = event.data;
    const list = await postJson<{ id: string }>(
      `${naiveConfig.baseUrl}/contacts`,
      { 'x-api-key': naiveConfig.apiKey },
      {
        name: 'customers',
        members: [
          {
            email: customer.email,
            firstName: customer.firstName,
            lastName: customer.lastName,
            phone: customer.phone,
            address1: customer.address?.address1,
            city: customer.address?.city,
            province: customer.address?.province,
            postalCode: customer.address?.postalCode,
            country: customer.address?.country,
            currency,
            lastPurchasePrice: total,
            latestOrderId: orderId,
            source: 'shop',
          },
        ],
      },
    );
    const lines = items
      .map((i) => `<tr><td>${i.name}</td><td>${i.quantity}</td><td>${i.unitPrice}</td></tr>`)
      .join('');
    const sent = await postJson<{ requestId: string }>(
      `${naiveConfig.relayBaseUrl}/email/campaign`,
      { 'x-relay-access-token': naiveConfig.relayToken },
      {
        subject: `Your order ${orderId}`,
        preview: `We received your order of ${total} ${currency}.`,
        body: `<p>Thank you, ${customer.firstName}.</p><table>${lines}</table><p>Total ${total} ${currency}</p>`,
        campaignId: 'order-confirmation-v1',
        sender: { from: naiveConfig.from },
        recipients: {
          to: [{ name: `${customer.firstName} ${customer.lastName}`, email: customer.email }],
        },
      },
    );
    const result = (type: string, data: object) => ({
      key: orderId,
      // A structured-mode CloudEvent, as mailbridge writes results with RESULT_EVENT_MODE=structured.
      headers: { 'content-type': 'application/cloudevents+json; charset=utf-8' },
      value: {
        id: `${event.id}:${type}`,
        type,
        source: 'naive',
        time: new Date().toISOString(),
        specversion: '1.0',
        datacontenttype: 'application/json',
        sourceeventid: event.id,
        data,
      },
    });
    await lastValueFrom(
      this.results.emit(
        naiveConfig.topics.contactListCreated,
        result('email.contact_list.created.v1', { listId: list.id }),
      ),
    );
    await lastValueFrom(
      this.results.emit(
        naiveConfig.topics.campaignSent,
        result('email.campaign.sent.v1', { requestId: sent.requestId, recipientCount: 1 }),
      ),
    );
  }
}
