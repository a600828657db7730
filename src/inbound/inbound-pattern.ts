/**
 * The `@EventPattern` every inbound topic is routed to (topic names are configuration). Its
 * handler takes the records of one partition admitted together and returns, at once, a promise
 * of each record's outcome, in their order: Nest's handler pipeline (its pipes, interceptors and
 * exception filter, a chain of promises) runs once per chunk of records rather than per record.
 */
export const INBOUND_RECORDS = 'mailbridge.inbound.records';
