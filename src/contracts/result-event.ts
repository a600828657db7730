import { createHash } from 'node:crypto';

/** The envelope of every event mailbridge publishes. */
export interface ResultEvent<Type extends string, Data> {
  /** Deterministic: the same source event and template always give the same id. */
  id: string;
  type: Type;
  source: 'mailbridge';
  time: string;
  /** The id of the source event this result answers. */
  correlationId: string;
  data: Data;
}

export const RESULT_SOURCE = 'mailbridge';

/** A deterministic result id, so subscribers can deduplicate results of a redelivered event. */
export function resultEventId(resultType: string, sourceEventId: string, template: string): string {
  return createHash('sha256')
    .update(`${resultType}\u0000${sourceEventId}\u0000${template}`)
    .digest('hex')
    .slice(0, 32);
}
