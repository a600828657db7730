import { Global, Module } from '@nestjs/common';
import { Kafka } from 'kafkajs';
import { KafkaProvider } from './kafka.provider';

@Global()
@Module({ providers: [KafkaProvider], exports: [Kafka] })
export class KafkaModule {}
