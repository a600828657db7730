import { IsIn, Matches, MaxLength } from 'class-validator';
import {
  DEFAULT_RESULT_SOURCE,
  RESULT_EVENT_MODES,
  type ResultEventMode,
} from '../../contracts/result-event';
import { Default } from '../default.decorator';
import { KafkaEnvironment } from './kafka.env';

const TOPIC = /^[a-zA-Z0-9._-]{1,249}$/;
/** RFC 3986 characters, every `%` starting a two-digit escape: what a CloudEvents `source` may be. */
const URI_REFERENCE = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})+$/;

/** The topics read and written (`TOPIC_*`), and the form of the result events written to them. */
export class TopicsEnvironment extends KafkaEnvironment {
  /** Inbound topic of sign-ups. */
  @Default('user.signed_up.v1')
  @Matches(TOPIC)
  TOPIC_USER_SIGNED_UP!: string;

  /** Inbound topic of placed orders. */
  @Default('order.placed.v1')
  @Matches(TOPIC)
  TOPIC_ORDER_PLACED!: string;

  /** Inbound topic of campaign commands. */
  @Default('email.campaign.requested.v1')
  @Matches(TOPIC)
  TOPIC_CAMPAIGN_REQUESTED!: string;

  /** Inbound topic of contact-list commands. */
  @Default('email.contact_list.requested.v1')
  @Matches(TOPIC)
  TOPIC_CONTACT_LIST_REQUESTED!: string;

  /** Inbound topic of suppression commands (an address added to or removed from the list). */
  @Default('email.suppression.requested.v1')
  @Matches(TOPIC)
  TOPIC_SUPPRESSION_REQUESTED!: string;

  /** Result topic of the campaign sends the vendor accepted. */
  @Default('email.campaign.sent.v1')
  @Matches(TOPIC)
  TOPIC_CAMPAIGN_SENT!: string;

  /** Result topic of the contact lists created. */
  @Default('email.contact_list.created.v1')
  @Matches(TOPIC)
  TOPIC_CONTACT_LIST_CREATED!: string;

  /** Result topic of the events that could not be sent. */
  @Default('email.dispatch.failed.v1')
  @Matches(TOPIC)
  TOPIC_DISPATCH_FAILED!: string;

  /** Where bad input goes, untouched, with headers that say what is wrong with it. */
  @Default('mailbridge.dead-letter.v1')
  @Matches(TOPIC)
  TOPIC_DEAD_LETTER!: string;

  /** CloudEvents content mode of the results: `ce_` headers (binary) or one JSON document. */
  @Default('binary')
  @IsIn(RESULT_EVENT_MODES)
  RESULT_EVENT_MODE!: ResultEventMode;

  /** The results' CloudEvents `source`: a URI-reference naming this service. */
  @Default(DEFAULT_RESULT_SOURCE)
  @MaxLength(1000)
  @Matches(URI_REFERENCE, {
    message:
      'RESULT_EVENT_SOURCE must be a URI-reference (e.g. mailbridge or /services/mailbridge)',
  })
  RESULT_EVENT_SOURCE!: string;
}
