import { getHeapStatistics } from 'node:v8';
import { Logger, type INestApplication, type LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Kafka } from 'kafkajs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module';
import type { AppConfig } from './config/app-config';
import { loadConfig } from './config/config.loader';
import { ConsumerStatus } from './inbound/consumer-status';
import { ConsumerBacklog } from './delivery/consumer-backlog';
import { VendorGate } from './delivery/vendor.gate';
import { DependencyStatus } from './health/dependency-status';
import { KafkaBatchServer } from './inbound/kafka-batch.server';
import { windowHeapWarning } from './inbound/window-heap';
import { MetricsService } from './metrics/metrics.service';
import { checkTopicsExist, ensureTopics } from './kafka/kafka.provider';
import { createServiceLogger, ServiceLogger } from './logging/service-logger';
import type { RedisConnection } from './redis/redis.connection';
import { REDIS_CONNECTION } from './redis/redis.module';

/**
 * Builds the service and starts its HTTP server, so that `/health/live` answers (and
 * `/health/ready` says 503) while the consumer is still joining its group, which can take a
 * rebalance or longer. The Kafka transport is attached but not started: see {@link startConsuming}.
 */
export async function createApp(
  config: AppConfig = loadConfig(),
  logger: LoggerService = serviceLoggerFor(config),
): Promise<INestApplication> {
  const app = await NestFactory.create(AppModule.forRoot(config), { logger });
  const metrics = app.get(MetricsService);
  if (logger instanceof ServiceLogger) metrics.watchLogDrops(() => logger.droppedLines);
  const redis = app.get<RedisConnection | undefined>(REDIS_CONNECTION);
  if (redis) metrics.watchRedisReplicas(() => redis.writesWithoutReplicas);
  const status = app.get(ConsumerStatus);
  app.get(ConsumerBacklog).readFrom(() => status.waiting());
  app.connectMicroservice(
    {
      strategy: new KafkaBatchServer(
        app.get(Kafka),
        {
          groupId: config.kafka.groupId,
          topics: config.inboundTopics,
          maxInFlight: config.consumer.maxInFlight,
          maxInFlightBytes: config.consumer.maxInFlightBytes,
          commitIntervalMs: config.consumer.commitIntervalMs,
          shutdownTimeoutMs: config.shutdownTimeoutMs,
          startFrom: config.consumer.startFrom,
          sessionTimeoutMs: config.kafka.sessionTimeoutMs,
          partitionsConcurrently: config.consumer.partitionsConcurrently,
          allowAutoTopicCreation: config.kafka.createTopics,
          gate: app.get(VendorGate),
          metrics: app.get(MetricsService),
          dependencies: app.get(DependencyStatus),
        },
        status,
      ),
    },
    { inheritAppConfig: true },
  );
  await app.listen(config.httpPort, '0.0.0.0');
  const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
  new Logger('mailbridge').log(`health on :${port}; starting the consumer`);
  return app;
}

/**
 * Creates missing topics (KAFKA_CREATE_TOPICS=true) or checks that they all exist, then starts
 * the Kafka transport. Resolves once the consumer has joined its group; rejects when it cannot
 * start (a topic missing, the broker unreachable after kafkajs' retries), which the caller must
 * treat as fatal.
 */
export async function startConsuming(app: INestApplication, config: AppConfig): Promise<void> {
  const kafka = app.get(Kafka);
  if (config.kafka.createTopics) await ensureTopics(kafka, config);
  else await checkTopicsExist(kafka, config);
  await app.startAllMicroservices();
  // The heap limit comes from NODE_OPTIONS (the image sets one to fit its container's memory
  // limit): said here so that an operator sees which one a process actually runs with.
  const heapLimit = getHeapStatistics().heap_size_limit;
  const logger = new Logger('mailbridge');
  logger.log(`started in ${config.mode} mode (heap limit ${Math.round(heapLimit / 2 ** 20)} MB)`);
  const tooLarge = windowHeapWarning(config.consumer.maxInFlight, heapLimit);
  if (tooLarge) logger.warn(tooLarge);
}

/**
 * Builds and starts the service in one step: used by the integration tests, which pass their own
 * config and want a consumer that has joined. `main.ts` uses the two steps apart.
 */
export async function startApp(
  config: AppConfig = loadConfig(),
  logger: LoggerService = serviceLoggerFor(config),
): Promise<INestApplication> {
  const app = await createApp(config, logger);
  try {
    await startConsuming(app, config);
  } catch (error) {
    await app.close();
    throw error;
  }
  return app;
}

/**
 * The service's logger for a configuration: its level, its format, and the keys it scrubs.
 * Lines go to stdout unless a test gives another destination.
 */
export function serviceLoggerFor(
  config: AppConfig,
  destination?: DestinationStream,
): ServiceLogger {
  const settings = {
    level: config.logLevel,
    format: config.logFormat,
    secrets: config.secrets,
    bufferMaxBytes: config.logBufferMaxBytes,
  };
  return createServiceLogger(settings, destination);
}
