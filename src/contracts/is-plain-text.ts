import { ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * C0 and C1 controls and DEL. NEL (U+0085) is a C1 control, so it is covered here too. Tab, LF
 * and CR are listed apart because an HTML body may hold them; nothing else may.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
const TAB_OR_NEWLINE = /[\t\n\r]/;
/** Unicode line and paragraph separators: line breaks to mail software, invisible to people. */
const UNICODE_LINE_BREAK = /[\u2028\u2029]/;
/**
 * Characters that render as nothing or reorder what is shown: soft hyphen, zero-width space,
 * LRM/RLM, bidi embeddings and overrides, word joiner and invisible operators, bidi isolates,
 * BOM. In a name they make two strings look alike. The zero-width non-joiner and joiner are not
 * among them: Persian and Indic names and emoji sequences need them (addresses refuse them, see
 * `IsEmailAddress`).
 */
const INVISIBLE = /[\u00AD\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/;

/** A UTF-16 surrogate without its partner: JSON can escape one, UTF-8 cannot encode it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** `String.prototype.isWellFormed`, which the compiler's ES2023 library does not declare yet. */
export function isWellFormed(value: string): boolean {
  return !LONE_SURROGATE.test(value);
}

export interface PlainTextOptions {
  /**
   * Prose that is not a header or a name (an HTML body): tab, LF and CR are allowed, and so are
   * invisible characters, which real text needs (joiners in Indic and Persian script, soft
   * hyphens, bidi marks in right-to-left text).
   */
  multiline?: boolean;
}

/** The characters inside a one-class regular expression (`[a-z]` → `a-z`). */
function classBody(characterClass: RegExp): string {
  return characterClass.source.slice(1, -1);
}

/**
 * The same rule as a JSON Schema `pattern`, built from the same character classes: a string of
 * allowed characters only. JSON Schema patterns are compiled with the `u` flag (ajv does so), under
 * which `[\uD800-\uDFFF]` matches only a lone surrogate: a pair is read as one code point.
 */
export function plainTextPattern(options: PlainTextOptions = {}): string {
  const refused = [CONTROL, UNICODE_LINE_BREAK];
  if (!options.multiline) refused.push(TAB_OR_NEWLINE, INVISIBLE);
  return `^[^${refused.map(classBody).join('')}\\uD800-\\uDFFF]*$`;
}

/** What is wrong with `value` as plain text, or undefined. Never quotes the value. */
export function plainTextProblem(
  value: string,
  options: PlainTextOptions = {},
): string | undefined {
  if (!isWellFormed(value)) return 'malformed unicode';
  if (CONTROL.test(value)) return 'a control character';
  if (UNICODE_LINE_BREAK.test(value)) return 'a line break';
  if (options.multiline) return undefined;
  if (TAB_OR_NEWLINE.test(value)) return 'a line break or tab';
  if (INVISIBLE.test(value)) return 'an invisible character';
  return undefined;
}

/**
 * A string that is safe to hand to the vendor, which puts it in mail headers, addresses and
 * list names: no line break (header injection), no control and no invisible character.
 * Non-strings pass, so that `@IsString()` reports them once.
 */
export function IsPlainText(
  options: PlainTextOptions = {},
  validationOptions?: ValidationOptions,
): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isPlainText',
      // For the JSON Schema generator (json-schema.ts), which reads rules from the metadata.
      constraints: [options],
      validator: {
        validate: (value: unknown) =>
          typeof value !== 'string' || plainTextProblem(value, options) === undefined,
        defaultMessage: () => '$property must be plain text',
      },
    },
    validationOptions,
  );
}
