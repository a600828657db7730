import type { WindowEntry } from '../../src/windows/window.store';
import type { AppConfig } from '../../src/config/app-config';
import type { InboundEvent } from '../../src/contracts/inbound-contracts';
import type { OrderPlacedV1 } from '../../src/contracts/order-placed.v1';
import type { UserSignedUpV1 } from '../../src/contracts/user-signed-up.v1';
import { ContactListWindows } from '../../src/windows/contact-list.windows';
import { normalisedAddress } from '../../src/email-api/vendor-request.validator';
import type { CampaignAction } from '../../src/templates/planner';
import { NewCustomersPlanner } from '../../src/templates/new-customers/new-customers.planner';
import { OrderConfirmationPlanner } from '../../src/templates/order-confirmation/order-confirmation.planner';
import { WelcomePlanner } from '../../src/templates/welcome/welcome.planner';

/** What the floor does with one workload's events: a campaign, and for orders a window too. */
export interface FloorWork {
  campaign: { template: string; plan: (event: InboundEvent) => CampaignAction };
  window?: {
    template: string;
    entryOf: (event: InboundEvent, ref: string, key: Buffer | null) => WindowEntry;
  };
}

/** The templates mailbridge runs for the workload, as its planners make them. */
export function floorWork(workload: 'user' | 'order', appConfig: AppConfig): FloorWork {
  if (workload === 'user') {
    const welcome = new WelcomePlanner(appConfig);
    return {
      campaign: { template: welcome.name, plan: (e) => welcome.plan(e as UserSignedUpV1) },
    };
  }
  const confirmation = new OrderConfirmationPlanner(appConfig);
  const newCustomers = new NewCustomersPlanner(appConfig);
  const windows = new ContactListWindows({
    namePattern: appConfig.batching.contactListNamePattern,
    clockSkewMs: appConfig.batching.contactListClockSkewMs,
  });
  return {
    campaign: {
      template: confirmation.name,
      plan: (e) => confirmation.plan(e as OrderPlacedV1),
    },
    window: {
      template: newCustomers.name,
      entryOf: (event, ref, key) => {
        const action = newCustomers.plan(event as OrderPlacedV1);
        if (action.mode !== 'window') throw new Error('new-customers plans a window');
        const [member] = action.members;
        return {
          ...windows.choose(action.window),
          order: {
            ref,
            eventId: event.id,
            eventType: event.type,
            template: newCustomers.name,
            key: key === null ? null : key.toString('base64'),
            headers: {},
          },
          address: normalisedAddress(member.email),
          member,
        };
      },
    },
  };
}
