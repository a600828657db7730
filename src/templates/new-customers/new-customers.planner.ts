import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { ORDER_PLACED_V1, type OrderPlacedV1 } from '../../contracts/order-placed.v1';
import type { ContactMember } from '../../email-api/vendor.types';
import { Planner, type ContactListAction } from '../planner';

/**
 * Puts every ordering customer into a contact list per time window (by the order's `placedAt`,
 * so a redelivered order lands in the same window), with the purchase fields the vendor keeps.
 */
@Injectable()
@Planner()
export class NewCustomersPlanner implements Planner<OrderPlacedV1> {
  readonly name = 'new-customers';
  /** Lists of new customers are audiences for campaigns. */
  readonly category = 'marketing' as const;
  readonly eventType = ORDER_PLACED_V1;
  private readonly windowMs: number;

  constructor(config: AppConfig) {
    this.windowMs = Math.max(1, config.batching.contactListWindowMs);
  }

  plan(event: OrderPlacedV1): ContactListAction {
    const { customer, orderId, total, currency, placedAt } = event.data;
    const startMs = Math.floor(Date.parse(placedAt) / this.windowMs) * this.windowMs;
    const address = customer.address ?? {};
    const member: ContactMember = {
      email: customer.email,
      firstName: customer.firstName,
      lastName: customer.lastName,
      phone: customer.phone,
      company: customer.company,
      address1: address.address1,
      address2: address.address2,
      city: address.city,
      province: address.province,
      postalCode: address.postalCode,
      country: address.country,
      currency,
      source: 'mailbridge',
      tags: ['new-customer'],
      lastPurchaseOrder: placedAt,
      lastPurchasePrice: total,
      latestOrderId: orderId,
    };
    return {
      kind: 'contact-list',
      mode: 'window',
      listKey: this.name,
      window: { start: new Date(startMs), end: new Date(startMs + this.windowMs) },
      members: [withoutEmptyFields(member)],
    };
  }
}

/** The member with its undefined and empty fields left out, the others in the same order. */
function withoutEmptyFields(member: ContactMember): ContactMember {
  const kept: Record<string, unknown> = {};
  for (const key in member) {
    const value = member[key as keyof ContactMember];
    if (value !== undefined && value !== '') kept[key] = value;
  }
  return kept as ContactMember;
}
