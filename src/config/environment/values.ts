/**
 * How the areas' schemas read values that several of them take: an http(s) URL, and a boolean
 * given as the text `true` or `false`.
 */
export const httpUrl = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

/** `true` and `false` become booleans; anything else stays as it is, for `@IsBoolean` to reject. */
export const bool = ({ value }: { value: unknown }): unknown =>
  value === 'true' ? true : value === 'false' ? false : value;
