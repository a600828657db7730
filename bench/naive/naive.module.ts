import { Module } from '@nestjs/common';
import { ClientsModule, Transport } from '@nestjs/microservices';
import { naiveConfig, RESULTS_CLIENT } from './naive.config';
import { OrderController } from './order.controller';
import { SignupController } from './signup.controller';

/**
 * The results client as the docs register it. `producerOnlyMode`: the service never awaits
 * replies, so the client needs no consumer group of its own (leaving it out would only add an
 * idle consumer, which would be crippling it for nothing).
 */
@Module({
  imports: [
    ClientsModule.register([
      {
        name: RESULTS_CLIENT,
        transport: Transport.KAFKA,
        options: {
          client: { clientId: 'naive-results', brokers: naiveConfig.brokers },
          producerOnlyMode: true,
        },
      },
    ]),
  ],
  controllers: [SignupController, OrderController],
})
export class NaiveModule {}
