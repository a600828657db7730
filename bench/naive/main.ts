import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Transport, type MicroserviceOptions } from '@nestjs/microservices';
import { naiveConfig } from './naive.config';
import { NaiveModule } from './naive.module';

/**
 * The naive design: a plain NestJS microservice on the built-in Kafka transport with its
 * default settings (kafkajs `eachMessage`, one partition at a time, one record at a time).
 * Nest appends `-server` to the group id.
 */
async function main(): Promise<void> {
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(NaiveModule, {
    transport: Transport.KAFKA,
    options: {
      client: { clientId: 'naive', brokers: naiveConfig.brokers },
      consumer: { groupId: naiveConfig.groupId },
      subscribe: { fromBeginning: true },
    },
    logger: ['error', 'warn'],
  });
  await app.listen();
  const stop = () => void app.close().finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

void main();
