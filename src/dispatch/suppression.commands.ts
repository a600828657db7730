import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EmailSuppressionRequestedV1 } from '../contracts/email-suppression-requested.v1';
import { SuppressionList } from '../suppression/suppression-list';
import { WINDOW_STORE, type WindowStore } from '../windows/window.store';

/**
 * Carries out `email.suppression.requested.v1`: adds the address to the suppression list or
 * removes it. Both are idempotent, so a redelivered command needs no claim. `reason: erased` is
 * an erasure whatever `action` says (it cannot be taken back): the address goes onto the list for
 * every category, and leaves every contact-list window not yet created, so that its keyed hash is
 * all mailbridge keeps of it.
 */
@Injectable()
export class SuppressionCommands {
  private readonly logger = new Logger(SuppressionCommands.name);

  constructor(
    private readonly list: SuppressionList,
    @Inject(WINDOW_STORE) private readonly windows: WindowStore,
  ) {}

  async apply({ id, data }: EmailSuppressionRequestedV1): Promise<void> {
    const { action, address, reason, scope } = data;
    if (reason === 'erased') {
      // On the list first: nothing is mailed to it from here on, whatever the windows still hold.
      await this.list.add(address, 'all', 'erased');
      const lists = await this.windows.forget(address);
      this.logger.log({ msg: `erased an address from ${lists} contact lists`, eventId: id });
      return;
    }
    if (action === 'add') await this.list.add(address, scope, reason);
    else await this.list.remove(address, scope);
    // The event's id, never the address.
    this.logger.log({ msg: `suppression ${action} (${scope}, ${reason})`, eventId: id });
  }
}
