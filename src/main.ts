// The signal handlers come first, and only Node's own modules load before them: Nest, kafkajs and
// the config schema take about a second to load, and a SIGTERM in that second (a pod deleted
// while it starts) must end the process cleanly rather than by the default handler.
import type { INestApplication } from '@nestjs/common';

/**
 * What a stop may take beyond SHUTDOWN_TIMEOUT_MS (the wait for in-flight records): the last
 * commit, leaving the group, disconnecting, and closing the producer, Redis and the vendor pools.
 * Past it the process exits 1 whatever is still running.
 */
const SHUTDOWN_MARGIN_MS = 5_000;

interface Log {
  log(message: string): void;
  error(message: string): void;
}

/**
 * Until the service's logger is loaded, lines go out in the same shape without it: one JSON
 * object per line, or plain text where the format is `pretty` (LOG_FORMAT, or local mode).
 */
const plainText =
  process.env.LOG_FORMAT === 'pretty' ||
  (!process.env.LOG_FORMAT && process.env.MAILBRIDGE_MODE === 'local');
function early(level: 'info' | 'error', message: string): void {
  const line = plainText
    ? `[mailbridge] ${message}`
    : JSON.stringify({ level, time: new Date().toISOString(), name: 'mailbridge', msg: message });
  (level === 'error' ? process.stderr : process.stdout).write(`${line}\n`);
}
let logger: Log = {
  log: (message) => early('info', message),
  error: (message) => early('error', message),
};
/** `loading`: nothing to close yet; `creating`: the app is being built; `created`: it exists. */
let phase: 'loading' | 'creating' | 'created' = 'loading';
let app: INestApplication | undefined;
let stopLimitMs = 0;
let stopping = false;
/** OpenTelemetry's SDK, when OTEL_* variables ask for traces (`tracing/tracing-sdk.ts`). */
let tracingSdk: { shutdown(): Promise<void> } | undefined;

process.on('SIGTERM', () => onSignal('SIGTERM'));
process.on('SIGINT', () => onSignal('SIGINT'));

// Our own handlers rather than enableShutdownHooks(): a clean stop must exit 0, and a second
// signal while stopping should end the process at once.
function onSignal(signal: string): void {
  if (stopping) {
    logger.error(`${signal} while stopping: exiting now`);
    process.exit(1);
  }
  stopping = true;
  logger.log(`${signal}: stopping`);
  if (phase === 'loading') process.exit(0); // nothing has started: nothing to close
  armHardExit();
  // While the app is being created, main() closes it as soon as it exists.
  if (app) closeAndExit(app, 0);
}

function armHardExit(): void {
  setTimeout(() => {
    logger.error(`the stop did not finish within ${stopLimitMs} ms; exiting anyway`);
    process.exit(1);
  }, stopLimitMs).unref();
}

function closeAndExit(created: INestApplication, code: number): void {
  created
    .close()
    // The spans of the last records are exported before the process ends.
    .then(() => tracingSdk?.shutdown())
    .then(
      () => process.exit(code),
      (error: unknown) => {
        logger.error(`shutdown failed: ${(error as Error).message}`);
        process.exit(1);
      },
    );
}

async function main(): Promise<void> {
  const { nodeVersionProblem } = await import('./node-version.js');
  const tooOld = nodeVersionProblem(process.versions.node);
  if (tooOld) {
    logger.error(tooOld);
    process.exit(1);
  }
  await import('reflect-metadata'); // before any decorated class loads
  const [{ Logger }, { loadConfig }, { ConfigError }] = await Promise.all([
    import('@nestjs/common'),
    import('./config/config.loader.js'),
    import('./config/config.error.js'),
  ]);
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      logger.error(error.message);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  const { createApp, startConsuming, serviceLoggerFor } = await import('./app.js');
  // From here on every line, Nest's and kafkajs' included, goes through the service's logger.
  const serviceLogger = serviceLoggerFor(config);
  Logger.overrideLogger(serviceLogger);
  logger = new Logger('mailbridge');
  routeProcessWarnings(new Logger('node'));
  const { startTracingSdk } = await import('./tracing/tracing-sdk.js');
  tracingSdk = await startTracingSdk();
  if (tracingSdk) logger.log('tracing: spans exported as the OTEL_* variables say');
  stopLimitMs = config.shutdownTimeoutMs + SHUTDOWN_MARGIN_MS;
  phase = 'creating';
  const created = await createApp(config, serviceLogger);
  app = created;
  phase = 'created';
  if (stopping) return closeAndExit(created, 0);
  try {
    await startConsuming(created, config);
  } catch (error) {
    if (stopping) return; // a start cut short by the stop, which closes the app
    stopping = true;
    logger.error(`the consumer could not start, exiting: ${(error as Error).message}`);
    armHardExit();
    closeAndExit(created, 1);
  }
}

/** Node's process warnings go to the log, at `warn`, instead of stderr as text of their own. */
function routeProcessWarnings(log: { warn(m: string): void }): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning) => log.warn(`${warning.name}: ${warning.message}`));
}

main().catch((error: unknown) => {
  logger.error(`failed to start: ${(error as Error).message}`);
  process.exit(1);
});
