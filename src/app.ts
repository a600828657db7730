import { Logger, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Kafka } from 'kafkajs';
import { AppModule } from './app.module';
import type { AppConfig } from './config/app-config';
import { loadConfig } from './config/config.loader';
import { ConsumerStatus } from './inbound/consumer-status';
import { DispatchModule } from './dispatch/dispatch.module';
import { VendorGate } from './dispatch/vendor.gate';
import { KafkaBatchServer } from './inbound/kafka-batch.server';
import { ensureTopics } from './kafka/kafka.provider';

/**
 * Builds and starts the service: the HTTP health endpoints and the Kafka transport. Used by
 * `main.ts` and by the integration tests, which pass their own config.
 */
export async function startApp(config: AppConfig = loadConfig()): Promise<INestApplication> {
  const app = await NestFactory.create(AppModule.forRoot(config), {
    logger: levelsFrom(config.logLevel),
  });
  const resolved = config;
  if (resolved.kafka.createTopics) await ensureTopics(app.get(Kafka), resolved);
  app.connectMicroservice(
    {
      strategy: new KafkaBatchServer(
        app.get(Kafka),
        {
          groupId: resolved.kafka.groupId,
          topics: resolved.inboundTopics,
          maxInFlight: resolved.consumer.maxInFlight,
          commitIntervalMs: resolved.consumer.commitIntervalMs,
          shutdownTimeoutMs: resolved.shutdownTimeoutMs,
          startFrom: resolved.consumer.startFrom,
          beforeStop: () => app.get(DispatchModule).drain(),
          gate: app.get(VendorGate),
        },
        app.get(ConsumerStatus),
      ),
    },
    { inheritAppConfig: true },
  );
  await app.startAllMicroservices();
  await app.listen(resolved.httpPort, '0.0.0.0');
  new Logger('mailbridge').log(`started in ${resolved.mode} mode; health on :${resolved.httpPort}`);
  return app;
}

const ORDER = ['error', 'warn', 'log', 'debug', 'verbose'] as const;

function levelsFrom(level: AppConfig['logLevel']) {
  return ORDER.slice(0, ORDER.indexOf(level) + 1);
}
