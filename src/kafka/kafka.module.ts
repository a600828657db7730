import { Module } from '@nestjs/common';
import { Kafka, logLevel } from 'kafkajs';
import { AppConfig } from '../config/app-config';
import { BrokerProbe } from './broker-probe';
import { KafkaProvider, createKafka } from './kafka.provider';

const PROBE_INTERVAL_MS = 2_000;
const PROBE_TIMEOUT_MS = 5_000;

@Module({
  providers: [
    KafkaProvider,
    {
      provide: BrokerProbe,
      inject: [AppConfig],
      // A client of its own: one attempt per check, and no kafkajs log line per failed attempt
      // (the probe logs an outage once).
      useFactory: (config: AppConfig) =>
        new BrokerProbe(
          createKafka(config, {
            logLevel: logLevel.NOTHING,
            retry: { retries: 0 },
            connectionTimeout: PROBE_TIMEOUT_MS,
            requestTimeout: PROBE_TIMEOUT_MS,
          }).admin(),
          {
            brokers: config.kafka.brokers.join(','),
            intervalMs: PROBE_INTERVAL_MS,
            timeoutMs: PROBE_TIMEOUT_MS,
          },
        ),
    },
  ],
  exports: [Kafka, BrokerProbe],
})
export class KafkaModule {}
