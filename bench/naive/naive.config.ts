/**
 * The naive service's settings, read from the same variables mailbridge reads so that the bench
 * starts both the same way. Read once at load: `@EventPattern` needs the topic names when the
 * controller classes are declared.
 */
export const naiveConfig = {
  brokers: required('KAFKA_BROKERS').split(','),
  groupId: required('KAFKA_GROUP_ID'),
  topics: {
    userSignedUp: required('TOPIC_USER_SIGNED_UP'),
    orderPlaced: required('TOPIC_ORDER_PLACED'),
    campaignSent: required('TOPIC_CAMPAIGN_SENT'),
    contactListCreated: required('TOPIC_CONTACT_LIST_CREATED'),
  },
  relayBaseUrl: required('VENDOR_RELAY_BASE_URL'),
  baseUrl: required('VENDOR_BASE_URL'),
  relayToken: required('VENDOR_RELAY_ACCESS_TOKEN'),
  apiKey: required('VENDOR_API_KEY'),
  from: { name: 'mailbridge', email: required('SENDER_FROM_EMAIL') },
};

export const RESULTS_CLIENT = 'RESULTS_CLIENT';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}
