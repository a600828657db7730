import type { RecordedRequest, SandboxStats } from './sandbox-options';

type Counters = Omit<SandboxStats, 'held'>;

/**
 * What the stand-in received: counters for every request, and the requests themselves in full
 * up to a limit, so that a long benchmark does not grow the heap without bound.
 */
export class RequestRecord {
  /** The kept requests, oldest first; cleared in place by `reset()`. */
  readonly entries: RecordedRequest[] = [];
  private seq = 0;
  private counters = emptyStats();

  constructor(private readonly limit: number) {}

  add(
    entry: Omit<RecordedRequest, 'seq' | 'at'>,
    accepted?: { campaign?: number; members?: number },
  ): void {
    const c = this.counters;
    this.seq++;
    c.received++;
    c.byStatus[entry.status] = (c.byStatus[entry.status] ?? 0) + 1;
    if (entry.fault) c.byFault[entry.fault] = (c.byFault[entry.fault] ?? 0) + 1;
    if (accepted?.campaign !== undefined) {
      c.campaignsAccepted++;
      c.recipientsAccepted += accepted.campaign;
    }
    if (accepted?.members !== undefined) {
      c.contactListsAccepted++;
      c.membersAccepted += accepted.members;
    }
    if (this.entries.length >= this.limit) return;
    c.recorded++;
    this.entries.push({ seq: this.seq, at: new Date().toISOString(), ...entry });
  }

  find(seq: number): RecordedRequest | undefined {
    // Entries are kept in seq order without gaps until the limit, so this is usually direct.
    const guess = this.entries[seq - 1];
    return guess?.seq === seq ? guess : this.entries.find((e) => e.seq === seq);
  }

  stats(): Counters {
    return structuredClone(this.counters);
  }

  reset(): void {
    this.entries.length = 0;
    this.seq = 0;
    this.counters = emptyStats();
  }
}

function emptyStats(): Counters {
  return {
    received: 0,
    recorded: 0,
    byStatus: {},
    byFault: {},
    campaignsAccepted: 0,
    recipientsAccepted: 0,
    contactListsAccepted: 0,
    membersAccepted: 0,
  };
}
