import { plainToInstance } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';
import { INBOUND_CONTRACTS, type InboundEvent } from '../contracts/inbound-contracts';
import { InvalidEventError } from './invalid-event.error';
import type { InboundMessage } from './inbound-message';

export const MAX_EVENT_BYTES = 256 * 1024;

/**
 * Turns a Kafka record into a validated, typed event, or throws {@link InvalidEventError}.
 * This is the one place inbound bytes are trusted into types.
 */
export async function parseEvent(message: InboundMessage): Promise<InboundEvent> {
  const value = message.value;
  if (!value || value.length === 0) throw new InvalidEventError('UNPARSEABLE', 'empty message');
  if (value.length > MAX_EVENT_BYTES) {
    throw new InvalidEventError(
      'OVERSIZED',
      `message of ${value.length} bytes exceeds ${MAX_EVENT_BYTES}`,
    );
  }
  let plain: unknown;
  try {
    plain = JSON.parse(value.toString('utf8'));
  } catch {
    throw new InvalidEventError('UNPARSEABLE', 'message is not JSON');
  }
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    throw new InvalidEventError('UNPARSEABLE', 'message is not a JSON object');
  }
  const type = (plain as { type?: unknown }).type;
  const contract = typeof type === 'string' ? INBOUND_CONTRACTS[type] : undefined;
  if (!contract) {
    throw new InvalidEventError('UNKNOWN_TYPE', `unknown event type ${describeType(type)}`);
  }
  const event = plainToInstance(contract, plain);
  const errors = await validate(event, { forbidUnknownValues: true });
  if (errors.length > 0) {
    throw new InvalidEventError(
      'INVALID',
      `${type as string} is invalid: ${flatten(errors).join('; ')}`,
    );
  }
  return event as InboundEvent;
}

function describeType(type: unknown): string {
  if (typeof type !== 'string') return '(missing)';
  return /^[a-z0-9_.-]{1,100}$/i.test(type) ? `'${type}'` : '(malformed)';
}

/** `data.email: email must be an email` style messages: property paths and rules, no values. */
function flatten(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((error) => {
    const path = `${prefix}${error.property}`;
    const own = Object.keys(error.constraints ?? {}).map((rule) => `${path} fails ${rule}`);
    return [...own, ...flatten(error.children ?? [], `${path}.`)];
  });
}
