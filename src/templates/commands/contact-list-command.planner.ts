import { Injectable } from '@nestjs/common';
import {
  EMAIL_CONTACT_LIST_REQUESTED_V1,
  type EmailContactListRequestedV1,
} from '../../contracts/email-contact-list-requested.v1';
import { Planner, type ContactListAction } from '../planner';

/** Creates the one contact list a service asked for, with exactly its members. */
@Injectable()
@Planner()
export class ContactListCommandPlanner implements Planner<EmailContactListRequestedV1> {
  readonly name = 'contact-list-command';
  /** A vendor contact list is an audience for campaigns. */
  readonly category = 'marketing' as const;
  readonly eventType = EMAIL_CONTACT_LIST_REQUESTED_V1;

  plan(event: EmailContactListRequestedV1): ContactListAction {
    return {
      kind: 'contact-list',
      mode: 'exact',
      name: event.data.name,
      members: event.data.members ?? [],
    };
  }
}
