export type InvalidEventCode = 'UNPARSEABLE' | 'INVALID' | 'UNKNOWN_TYPE' | 'OVERSIZED';

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
  ) {
    super(message);
  }
}
