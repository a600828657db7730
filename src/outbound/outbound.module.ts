import { Module } from '@nestjs/common';
import { KafkaModule } from '../kafka/kafka.module';
import { ResultPublisher } from './result.publisher';

/** Everything mailbridge writes to Kafka: result events and dead letters. */
@Module({
  imports: [KafkaModule],
  providers: [ResultPublisher],
  exports: [ResultPublisher],
})
export class OutboundModule {}
