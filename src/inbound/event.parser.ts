import { plainToInstance } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';
import type { IHeaders } from 'kafkajs';
import { INBOUND_CONTRACTS, type InboundEvent } from '../contracts/inbound-contracts';
import { InvalidEventError } from './invalid-event.error';
import type { InboundMessage } from './inbound-message';

/** CloudEvents attributes carried as `ce_` headers in binary mode (Kafka protocol binding). */
const BINARY_ATTRIBUTES = ['id', 'type', 'source', 'time', 'specversion', 'subject'] as const;

/**
 * Turns a Kafka record into a validated, typed event, or throws {@link InvalidEventError}.
 * Accepts a plain JSON envelope (`{id, type, time, data}`), a CloudEvents 1.0 structured event
 * (the same JSON plus `specversion` and `source`), and a CloudEvents binary-mode record
 * (`ce_*` headers, the value being `data`). This is the one place inbound bytes become types.
 */
export async function parseEvent(message: InboundMessage, maxBytes: number): Promise<InboundEvent> {
  const value = message.value;
  if (!value || value.length === 0) throw new InvalidEventError('UNPARSEABLE', 'empty message');
  if (value.length > maxBytes) {
    throw new InvalidEventError(
      'OVERSIZED',
      `message of ${value.length} bytes exceeds ${maxBytes}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(value.toString('utf8'));
  } catch {
    throw new InvalidEventError('UNPARSEABLE', 'message is not JSON');
  }
  const binary = header(message.headers, 'ce_specversion') !== undefined;
  const plain = binary ? fromBinaryMode(message.headers, json) : json;
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

function fromBinaryMode(headers: IHeaders, data: unknown): Record<string, unknown> {
  const event: Record<string, unknown> = { data };
  for (const name of BINARY_ATTRIBUTES) {
    const value = header(headers, `ce_${name}`);
    if (value !== undefined) event[name] = value;
  }
  return event;
}

function header(headers: IHeaders, name: string): string | undefined {
  const value = headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}

function describeType(type: unknown): string {
  if (typeof type !== 'string') return '(missing)';
  return /^[a-z0-9_.-]{1,100}$/i.test(type) ? `'${type}'` : '(malformed)';
}

/** `data.email fails isEmail` style messages: property paths and rules, never values. */
function flatten(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((error) => {
    const path = `${prefix}${error.property}`;
    const own = Object.keys(error.constraints ?? {}).map((rule) => `${path} fails ${rule}`);
    return [...own, ...flatten(error.children ?? [], `${path}.`)];
  });
}
