import type { Context } from '@opentelemetry/api';
import type { IHeaders } from 'kafkajs';
import type { ContactListHooks } from '../email-api/vendor.client';
import type {
  ContactListCreated,
  ContactListRequest,
  ContactMember,
} from '../email-api/vendor.types';
import { ClaimLostError } from '../idempotency/claim-lost.error';
import { endSpan, type Tracing } from '../tracing/tracing';

export interface ContactListCreator {
  createContactList(
    request: ContactListRequest,
    hooks?: ContactListHooks,
  ): Promise<ContactListCreated>;
}

export interface CreatedList {
  listId: string;
  name: string;
  memberCount: number;
  /** Failed attempts that may have created the list (or a twin of it) all the same. */
  ambiguousAttempts: number;
}

/**
 * How one list goes out: what must hold before its request is written (a claim, or a window's
 * list still this replica's), and the traces of the events whose members it carries.
 */
export interface ListSend {
  /**
   * Marks the list as being sent, atomically with checking it is still ours; false when it was
   * lost (then nothing is sent: whoever has it now sends it).
   */
  markSending(): Promise<boolean>;
  /** The events' traces, which the request creating the list links to. */
  traces: Array<Context | undefined>;
  /** Or the events' propagated headers (a window keeps those), read into traces here. */
  traceHeaders?: IHeaders[];
}

/**
 * Creates contact lists, one request each, as a span linked to every event whose member the
 * list holds. The vendor can only create a list (with its members), never add to one: the
 * windows that gather the members of many orders live in `src/windows/` (`WindowStore`), and
 * come here only to be created.
 */
export class ContactListBatcher {
  constructor(
    private readonly creator: ContactListCreator,
    private readonly tracing?: Pick<Tracing, 'vendorRequest' | 'contextOf'>,
  ) {}

  /**
   * Creates exactly this list, once `send` says it is still ours to send. It is marked `sending`
   * only once the request holds its budget token, just before it is written: a list still
   * waiting for a token is not "maybe sent" when its replica stops or dies.
   */
  async createExact(name: string, members: ContactMember[], send: ListSend): Promise<CreatedList> {
    const beforeWrite = async (): Promise<void> => {
      if (!(await send.markSending())) throw new ClaimLostError(name);
    };
    const traces = [
      ...send.traces,
      ...(send.traceHeaders ?? []).map((headers) => this.tracing?.contextOf(headers)),
    ];
    const created = await this.createTraced({ name, members }, traces, { beforeWrite });
    return {
      listId: created.id,
      name,
      memberCount: members.length,
      ambiguousAttempts: created.ambiguousAttempts,
    };
  }

  private async createTraced(
    request: ContactListRequest,
    traces: Array<Context | undefined>,
    hooks: ContactListHooks,
  ): Promise<ContactListCreated> {
    const span = this.tracing?.vendorRequest('create contact list', traces, {
      'mailbridge.events': traces.length,
      'mailbridge.members': request.members?.length ?? 0,
    });
    try {
      const created = await this.creator.createContactList(request, hooks);
      if (span) endSpan(span);
      return created;
    } catch (error) {
      if (span) endSpan(span, error);
      throw error;
    }
  }
}
