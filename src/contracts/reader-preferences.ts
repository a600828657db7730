import { IsOptional, IsString, MaxLength } from 'class-validator';
import { IsPlainText } from './is-plain-text';
import { Lenient } from './lenient';
import { TIME_ZONE_MAX_LENGTH } from './time-zone';

/** Applies `decorators` as if written above the property in this order (the last runs first). */
function stacked(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => {
    for (const decorate of [...decorators].reverse()) decorate(target, key);
  };
}

/**
 * A reader's language as a BCP 47 tag (`de-DE`), optional and lenient: a value that does not
 * fit is ignored; a well-formed tag nobody knows falls back to the default copy in the templates.
 */
export const ReaderLocale = (): PropertyDecorator =>
  stacked(IsOptional(), IsString(), MaxLength(35), IsPlainText(), Lenient());

/** A reader's IANA time zone (`Europe/Berlin`), optional and lenient as {@link ReaderLocale}. */
export const ReaderTimeZone = (): PropertyDecorator =>
  stacked(IsOptional(), IsString(), MaxLength(TIME_ZONE_MAX_LENGTH), IsPlainText(), Lenient());
