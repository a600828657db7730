import type { TopicsConfig } from '../config/app-config';
import { defaultsFor } from '../config/default.decorator';
import { EnvironmentVariables } from '../config/environment.dto';
import { EMAIL_CAMPAIGN_REQUESTED_V1 } from '../contracts/email-campaign-requested.v1';
import { EMAIL_CAMPAIGN_SENT_V1 } from '../contracts/email-campaign-sent.v1';
import { EMAIL_CONTACT_LIST_CREATED_V1 } from '../contracts/email-contact-list-created.v1';
import { EMAIL_CONTACT_LIST_REQUESTED_V1 } from '../contracts/email-contact-list-requested.v1';
import { EMAIL_SUPPRESSION_REQUESTED_V1 } from '../contracts/email-suppression-requested.v1';
import { EMAIL_DISPATCH_FAILED_V1 } from '../contracts/email-dispatch-failed.v1';
import { EMAIL_UNSUBSCRIBED_V1 } from '../contracts/email-unsubscribed.v1';
import { ORDER_PLACED_V1 } from '../contracts/order-placed.v1';
import { USER_SIGNED_UP_V1 } from '../contracts/user-signed-up.v1';

/** One channel of the AsyncAPI document: a topic, the setting that names it, what it carries. */
export interface ChannelSpec {
  /** The channel's id in the document. */
  id: keyof TopicsConfig;
  /** The environment variable that names the topic. */
  variable: string;
  kind: 'inbound' | 'result' | 'dead-letter';
  /** The message type it carries (none for the dead-letter topic, which carries any). */
  type?: string;
}

export const CHANNELS: readonly ChannelSpec[] = [
  { id: 'userSignedUp', variable: 'TOPIC_USER_SIGNED_UP', kind: 'inbound', type: USER_SIGNED_UP_V1 },
  { id: 'orderPlaced', variable: 'TOPIC_ORDER_PLACED', kind: 'inbound', type: ORDER_PLACED_V1 },
  {
    id: 'campaignRequested',
    variable: 'TOPIC_CAMPAIGN_REQUESTED',
    kind: 'inbound',
    type: EMAIL_CAMPAIGN_REQUESTED_V1,
  },
  {
    id: 'contactListRequested',
    variable: 'TOPIC_CONTACT_LIST_REQUESTED',
    kind: 'inbound',
    type: EMAIL_CONTACT_LIST_REQUESTED_V1,
  },
  {
    id: 'suppressionRequested',
    variable: 'TOPIC_SUPPRESSION_REQUESTED',
    kind: 'inbound',
    type: EMAIL_SUPPRESSION_REQUESTED_V1,
  },
  {
    id: 'campaignSent',
    variable: 'TOPIC_CAMPAIGN_SENT',
    kind: 'result',
    type: EMAIL_CAMPAIGN_SENT_V1,
  },
  {
    id: 'contactListCreated',
    variable: 'TOPIC_CONTACT_LIST_CREATED',
    kind: 'result',
    type: EMAIL_CONTACT_LIST_CREATED_V1,
  },
  {
    id: 'dispatchFailed',
    variable: 'TOPIC_DISPATCH_FAILED',
    kind: 'result',
    type: EMAIL_DISPATCH_FAILED_V1,
  },
  { id: 'deadLetter', variable: 'TOPIC_DEAD_LETTER', kind: 'dead-letter' },
  {
    id: 'unsubscribed',
    variable: 'TOPIC_UNSUBSCRIBED',
    kind: 'result',
    type: EMAIL_UNSUBSCRIBED_V1,
  },
];

/** The production defaults of the settings the document names. */
export const DEFAULTS: Readonly<Record<string, string>> = defaultsFor(
  EnvironmentVariables,
  'production',
);

/** The topic names when no setting changes them: the committed document's. */
export function defaultTopics(): TopicsConfig {
  return Object.fromEntries(CHANNELS.map((c) => [c.id, DEFAULTS[c.variable]])) as TopicsConfig;
}
