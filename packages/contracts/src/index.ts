/**
 * `@mailbridge/contracts`: what a TypeScript service needs to publish events to mailbridge and to
 * subscribe to its results, with no dependency on mailbridge's own code: the event and result
 * types, their type names and default topics, the JSON Schemas, and CloudEvents encode/decode
 * helpers for Kafka records (binary and structured content modes).
 */
export * from './inbound.js';
export * from './results.js';
export * from './kafka-record.js';
export * from './cloudevents.js';
export { SCHEMA_DIR, schemas, type JsonSchema } from './schemas.js';
export {
  SchemaValidator,
  SchemaValidationError,
  defaultValidator,
  type ValidationResult,
} from './validation.js';
