import { Injectable } from '@nestjs/common';
import {
  EMAIL_CONTACT_LIST_REQUESTED_V1,
  type EmailContactListRequestedV1,
} from '../../contracts/email-contact-list-requested.v1';
import { EmailTemplate, type ContactListAction, type Template } from '../template';

/** Creates the one contact list a service asked for, with exactly its members. */
@Injectable()
@EmailTemplate()
export class ContactListCommandTemplate implements Template<EmailContactListRequestedV1> {
  readonly name = 'contact-list-command';
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
