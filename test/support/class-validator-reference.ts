import { plainToInstance } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';
import {
  INBOUND_CONTRACTS,
  INBOUND_READERS,
  type InboundEvent,
} from '../../src/contracts/inbound-contracts';
import { InvalidEventError } from '../../src/inbound/invalid-event.error';

/**
 * How mailbridge validated events before the compiled JSON Schemas: class-transformer makes the
 * contract's class instances, class-validator interprets their decorators, with unknown fields
 * refused (but for a domain event's `data`, where they are ignored). Kept as the reference that the compiled validators must agree with
 * (`src/inbound/event.validator.spec.ts`) and as the "before" of `npm run bench:parse`; the
 * service itself no longer runs it. Needs `reflect-metadata` loaded.
 */
export async function classValidatorEvent(
  type: string,
  plain: Record<string, unknown>,
): Promise<InboundEvent> {
  let errors: ValidationError[];
  let event: object;
  try {
    event = plainToInstance(INBOUND_CONTRACTS[type], plain);
    errors = await validate(event, {
      forbidUnknownValues: true,
      whitelist: true,
      forbidNonWhitelisted: true,
    });
  } catch (cause) {
    throw new InvalidEventError('INVALID', `${type} could not be validated`, { cause });
  }
  // A domain event's reader ignores unknown `data` fields (INBOUND_READERS): only the rest count.
  const tolerant = INBOUND_READERS[type] === 'tolerant';
  const unknown = flatten(errors, (rule) => rule === 'whitelistValidation').filter(
    (path) => !(tolerant && path.startsWith('data.')),
  );
  if (unknown.length > 0) {
    throw new InvalidEventError(
      'UNKNOWN_FIELD',
      `${type} has unknown fields: ${unknown.join('; ')}`,
    );
  }
  const broken = flatten(errors, (rule) => rule !== 'whitelistValidation');
  if (broken.length > 0) {
    throw new InvalidEventError('INVALID', `${type} is invalid: ${broken.join('; ')}`);
  }
  return event as InboundEvent;
}

/** `data.email fails isEmail` style messages: property paths and rules, never values. */
function flatten(
  errors: ValidationError[],
  include: (rule: string) => boolean = () => true,
  prefix = '',
): string[] {
  return errors.flatMap((error) => {
    const name = /^[A-Za-z0-9_$-]{1,64}$/.test(error.property) ? error.property : '(unnamed)';
    const path = `${prefix}${name}`;
    const own = Object.keys(error.constraints ?? {})
      .filter(include)
      .map((rule) => (rule === 'whitelistValidation' ? path : `${path} fails ${rule}`));
    return [...own, ...flatten(error.children ?? [], include, `${path}.`)];
  });
}
