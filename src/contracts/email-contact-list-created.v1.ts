import type { ResultEvent } from './result-event';

export const EMAIL_CONTACT_LIST_CREATED_V1 = 'email.contact_list.created.v1';

/** `email.contact_list.created.v1`: the list holding the source event's member(s) exists. */
export type EmailContactListCreatedV1 = ResultEvent<
  typeof EMAIL_CONTACT_LIST_CREATED_V1,
  {
    sourceEventId: string;
    sourceEventType: string;
    template: string;
    /** The vendor's id of the new list (a UUID). */
    listId: string;
    name: string;
    /** How many members the list was created with. */
    memberCount: number;
    /**
     * Present (true) when an earlier attempt of this send may have reached the vendor too: a
     * crash after the request was written, or an answer lost to a timeout or reset.
     */
    ambiguous?: true;
  }
>;
