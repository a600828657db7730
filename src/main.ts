import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { startApp } from './app';
import { ConfigError } from './config/config.error';
import { loadConfig } from './config/config.loader';

async function main(): Promise<void> {
  const logger = new Logger('mailbridge');
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
  const app = await startApp(config);
  // Our own handler rather than enableShutdownHooks(): a clean stop must exit 0, and a second
  // signal while stopping should end the process at once.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.log(`${signal}: stopping`);
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error(`shutdown failed: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  new Logger('mailbridge').error(`failed to start: ${(error as Error).message}`);
  process.exit(1);
});
