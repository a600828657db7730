import { UnsubscribeEnvironment } from './environment/unsubscribe.env';

/**
 * Every environment variable mailbridge reads, each with its default: `@Default` holds in
 * production and, unless it gives one of its own, in local mode; `@LocalDefault` only in local
 * mode (production requires the variable). Values arrive as strings; the other decorators
 * convert and validate them, and `loadConfig` reports every violation at once.
 *
 * The variables are declared by area, one class per file in `environment/`, each extending the
 * one before: service, kafka, topics, vendor, sender, consumer, batching, idempotency, shutdown, templates,
 * consent, unsubscribe.
 * The chain is there so that this one class carries every area's decorators (class-validator,
 * class-transformer and `default.decorator.ts` all read inherited ones), and problems are
 * reported in the areas' order. A new setting is a field in its area's class plus the line in
 * `app-config.ts` that puts it into `AppConfig`.
 */
export class EnvironmentVariables extends UnsubscribeEnvironment {}
