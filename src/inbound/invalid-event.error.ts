/** Why a record was dead-lettered; docs/events.md's dead-letter table says what triggers each. */
export type InvalidEventCode =
  | 'UNPARSEABLE'
  | 'OVERSIZED'
  | 'INVALID_ENCODING'
  | 'UNSUPPORTED_CONTENT_TYPE'
  | 'TOO_COMPLEX'
  | 'INVALID_CLOUDEVENT'
  | 'UNKNOWN_TYPE'
  | 'WRONG_TOPIC'
  | 'UNKNOWN_FIELD'
  | 'INVALID'
  | 'TEMPLATE_FAILED';

/**
 * Input that can never succeed, however often it is retried: it goes to the dead-letter topic.
 * The message names fields and constraints, never the values that broke them.
 */
export class InvalidEventError extends Error {
  override readonly name = 'InvalidEventError';
  readonly retriable = false;

  constructor(
    readonly code: InvalidEventCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
