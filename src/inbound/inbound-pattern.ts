/** The `@EventPattern` every inbound topic is routed to (topic names are configuration). */
export const INBOUND_EVENT = 'mailbridge.inbound';
