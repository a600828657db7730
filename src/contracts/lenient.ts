// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- what decorators receive
type Class = Function;

const LENIENT = new WeakMap<Class, Set<string>>();

/**
 * Marks an optional property of a domain event as lenient, a preference the producer may send
 * rather than a command: a value that does not fit the property's rules (the class-validator
 * decorators beside this one) is removed as if it had not been sent, counted with the ignored
 * fields (`mailbridge_inbound_ignored_fields_total`), and the event goes on; it is never
 * dead-lettered for that value. A value that fits is kept.
 *
 * This is what lets a published version of a domain event gain a field (`contracts:check`
 * accepts a new property only when it is optional and lenient): the published `data` was open,
 * so a producer may already send anything under that name. Only a property whose rules demand
 * one scalar type (a string, a number, a boolean) and that is `@IsOptional()` may be lenient;
 * the schema generation refuses any other.
 */
export function Lenient(): PropertyDecorator {
  return (prototype, property) => {
    const target = prototype.constructor;
    const names = LENIENT.get(target) ?? new Set<string>();
    names.add(String(property));
    LENIENT.set(target, names);
  };
}

/** Whether `property` of `target` (or of a class it extends) is {@link Lenient}. */
export function isLenient(target: Class, property: string): boolean {
  for (let c: unknown = target; typeof c === 'function'; c = Object.getPrototypeOf(c)) {
    if (LENIENT.get(c)?.has(property)) return true;
  }
  return false;
}
