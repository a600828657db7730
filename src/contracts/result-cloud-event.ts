import { IsIn, IsNotEmpty, IsObject, IsString } from 'class-validator';
import { EMAIL_CAMPAIGN_SENT_V1 } from './email-campaign-sent.v1';
import { EMAIL_CONTACT_LIST_CREATED_V1 } from './email-contact-list-created.v1';
import { EMAIL_DISPATCH_FAILED_V1 } from './email-dispatch-failed.v1';
import { IsRfc3339 } from './is-rfc3339';
import { JSON_CONTENT_TYPE } from './kafka-headers';

/** Every result type mailbridge publishes. */
export const RESULT_TYPES = [
  EMAIL_CAMPAIGN_SENT_V1,
  EMAIL_CONTACT_LIST_CREATED_V1,
  EMAIL_DISPATCH_FAILED_V1,
] as const;

/**
 * A result as a structured-mode CloudEvent (`RESULT_EVENT_MODE=structured`): the record value,
 * with `content-type: application/cloudevents+json`. In binary mode (the default) the same
 * attributes travel as `ce_` headers (`kafka-headers.ts`) and the value is `data` alone.
 */
export class StructuredResultEvent {
  @IsIn(['1.0'])
  specversion!: '1.0';

  /** Deterministic: the same source event and template always give the same id. */
  @IsString()
  @IsNotEmpty()
  id!: string;

  /** This service, from the setting RESULT_EVENT_SOURCE (default `mailbridge`). */
  @IsString()
  @IsNotEmpty()
  source!: string;

  @IsIn(RESULT_TYPES)
  type!: (typeof RESULT_TYPES)[number];

  @IsRfc3339()
  time!: string;

  @IsIn([JSON_CONTENT_TYPE])
  datacontenttype!: typeof JSON_CONTENT_TYPE;

  /** Extension attribute: the `id` of the inbound event this result answers. */
  @IsString()
  @IsNotEmpty()
  sourceeventid!: string;

  /** The result's data: the schema named by `type`. */
  @IsObject()
  data!: object;
}
