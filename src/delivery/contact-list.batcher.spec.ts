import type { Context, Span } from '@opentelemetry/api';
import type { ContactListHooks } from '../email-api/vendor.client';
import type { ContactListRequest } from '../email-api/vendor.types';
import type { Tracing } from '../tracing/tracing';
import { ClaimLostError } from '../idempotency/claim-lost.error';
import { ContactListBatcher, type ContactListCreator } from './contact-list.batcher';

/** Creates lists as the client does: `beforeWrite` once, then the write (recorded here). */
class RecordingCreator implements ContactListCreator {
  readonly lists: ContactListRequest[] = [];
  async createContactList(request: ContactListRequest, hooks?: ContactListHooks) {
    await hooks?.beforeWrite?.();
    this.lists.push(request);
    return { id: `list-${this.lists.length}`, ambiguousAttempts: 0 };
  }
}

const member = (n: number) => ({ email: `m${n}@example.com` });

describe(ContactListBatcher.name, () => {
  it('creates exactly the list asked for, once it is marked as being sent', async () => {
    const creator = new RecordingCreator();
    const marked: string[] = [];
    const batcher = new ContactListBatcher(creator);
    const delivery = await batcher.createExact('vip', [member(1), member(2)], {
      markSending: () => {
        marked.push('vip');
        return Promise.resolve(true);
      },
      traces: [],
    });
    expect(marked).toEqual(['vip']);
    expect(creator.lists).toEqual([{ name: 'vip', members: [member(1), member(2)] }]);
    expect(delivery).toEqual({
      listId: 'list-1',
      name: 'vip',
      memberCount: 2,
      ambiguousAttempts: 0,
    });
  });

  it('sends nothing for a list that is no longer its own (a claim or a window list lost)', async () => {
    const creator = new RecordingCreator();
    const batcher = new ContactListBatcher(creator);
    await expect(
      batcher.createExact('vip', [member(1)], {
        markSending: () => Promise.resolve(false),
        traces: [],
      }),
    ).rejects.toBeInstanceOf(ClaimLostError);
    expect(creator.lists).toHaveLength(0);
  });

  it('marks a list as being sent only once its request holds a token, just before the write', async () => {
    const steps: string[] = [];
    const creator: ContactListCreator = {
      async createContactList(_request, hooks) {
        steps.push('token'); // where the client waits for the shared budget
        await hooks?.beforeWrite?.();
        steps.push('write');
        return { id: '00000000-0000-4000-8000-000000000001', ambiguousAttempts: 0 };
      },
    };
    const batcher = new ContactListBatcher(creator);
    const send = (held: boolean) => ({
      markSending: () => {
        steps.push('mark sending');
        return Promise.resolve(held);
      },
      traces: [],
    });

    await batcher.createExact('Newsletter', [member(1)], send(true));
    expect(steps).toEqual(['token', 'mark sending', 'write']);

    steps.length = 0;
    await expect(batcher.createExact('Other', [member(2)], send(false))).rejects.toBeInstanceOf(
      ClaimLostError,
    );
    expect(steps).toEqual(['token', 'mark sending']);
  });

  it("links the request to the trace each order's kept headers carry", async () => {
    const links: unknown[][] = [];
    const tracing = {
      contextOf: (headers: Record<string, unknown>) => headers.traceparent as Context,
      vendorRequest: (_name: string, linked: unknown[]) => {
        links.push(linked);
        return { end: () => undefined, setStatus: () => undefined } as unknown as Span;
      },
    } as unknown as Tracing;
    const batcher = new ContactListBatcher(new RecordingCreator(), tracing);
    await batcher.createExact('l', [member(1), member(2)], {
      markSending: () => Promise.resolve(true),
      traces: [],
      traceHeaders: [{ traceparent: 'tp-1' }, { traceparent: 'tp-2' }],
    });
    expect(links).toEqual([['tp-1', 'tp-2']]);
  });
});
