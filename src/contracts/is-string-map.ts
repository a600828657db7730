import { ValidateBy, type ValidationOptions } from 'class-validator';

/** An object whose values are all strings (the vendor's recipient attributes, custom headers). */
export function IsStringMap(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isStringMap',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          Object.values(value).every((v) => typeof v === 'string'),
        defaultMessage: () => '$property must map names to strings',
      },
    },
    options,
  );
}
