import type { TopicsConfig } from '../config/app-config';
import { EMAIL_CAMPAIGN_REQUESTED_V1 } from '../contracts/email-campaign-requested.v1';
import { EMAIL_CONTACT_LIST_REQUESTED_V1 } from '../contracts/email-contact-list-requested.v1';
import { EMAIL_SUPPRESSION_REQUESTED_V1 } from '../contracts/email-suppression-requested.v1';
import { ORDER_PLACED_V1 } from '../contracts/order-placed.v1';
import { USER_SIGNED_UP_V1 } from '../contracts/user-signed-up.v1';

export type TypesByTopic = ReadonlyMap<string, ReadonlySet<string>>;

/**
 * Which event types each inbound topic may carry. Who may write a topic decides what it may
 * trigger: a campaign command on the sign-up topic is refused, not sent. Two types configured
 * onto one topic are both accepted there.
 */
export function typesByTopic(topics: TopicsConfig): TypesByTopic {
  const pairs: Array<[topic: string, type: string]> = [
    [topics.userSignedUp, USER_SIGNED_UP_V1],
    [topics.orderPlaced, ORDER_PLACED_V1],
    [topics.campaignRequested, EMAIL_CAMPAIGN_REQUESTED_V1],
    [topics.contactListRequested, EMAIL_CONTACT_LIST_REQUESTED_V1],
    [topics.suppressionRequested, EMAIL_SUPPRESSION_REQUESTED_V1],
  ];
  const map = new Map<string, Set<string>>();
  for (const [topic, type] of pairs) map.set(topic, (map.get(topic) ?? new Set()).add(type));
  return map;
}
