import type { IHeaders } from 'kafkajs';
import type { WindowOrder } from '../windows/window.store';
import type { InboundEvent } from '../contracts/inbound-contracts';
import type { Planner } from '../templates/planner';
import type { EventSource } from './dispatch-outcome';

/** What a contact-list window keeps of an event, to publish its result once the list exists. */
export function windowOrder(
  ref: string,
  event: InboundEvent,
  { name: template, category }: Pick<Planner, 'name' | 'category'>,
  source: EventSource,
): WindowOrder {
  return {
    ref,
    eventId: event.id,
    eventType: event.type,
    template,
    category,
    key: source.key === null ? null : source.key.toString('base64'),
    headers: textHeaders(source.headers),
  };
}

function textHeaders(headers: IHeaders): Record<string, string> {
  const text: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) text[name] = first.toString();
  }
  return text;
}
