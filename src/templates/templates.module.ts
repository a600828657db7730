import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { CommandsModule } from './commands/commands.module';
import { NewCustomersModule } from './new-customers/new-customers.module';
import { OrderConfirmationModule } from './order-confirmation/order-confirmation.module';
import { TemplateRegistry } from './template.registry';
import { WelcomeModule } from './welcome/welcome.module';

/** Every template module; a new template is a new module in this list, nothing else changes. */
@Module({
  imports: [
    DiscoveryModule,
    WelcomeModule,
    OrderConfirmationModule,
    NewCustomersModule,
    CommandsModule,
  ],
  providers: [TemplateRegistry],
  exports: [TemplateRegistry],
})
export class TemplatesModule {}
