import type { IHeaders, KafkaMessage } from 'kafkajs';
import {
  isDeadLetterHeader,
  readDeadLetterHeaders,
  type DeadLetterInfo,
} from '../../contracts/dead-letter-headers';
import type { RedriveOptions } from './redrive-options';
import { logKey } from './redrive-log';

/** A dead letter chosen to go back to its original topic, as it will be sent. */
export interface Candidate {
  /** Where the dead letter sits (its redrive log key is made of this). */
  at: { topic: string; partition: number; offset: string };
  /** When the dead letter was written (ms since the epoch). */
  timestamp: number;
  info: DeadLetterInfo;
  key: Buffer | null;
  value: Buffer | null;
  /** The original record's headers: the dead letter's own removed. */
  headers: IHeaders;
}

/** Counts of one (error code, original topic) pair. */
export interface TallyRow {
  code: string;
  topic: string;
  /** Dead letters in the topic with this code and original topic. */
  total: number;
  /** Of those, the ones the filters select that can go. */
  selected: number;
  /** Of those the filters select, the ones already on the redrive log. */
  alreadyRedriven: number;
}

export interface Selection {
  candidates: Candidate[];
  rows: TallyRow[];
  read: number;
  alreadyRedriven: number;
  /** Selected by the filters, but cannot go. */
  skipped: {
    /** The dead letter holds a reference to the original, not the original (it did not fit). */
    reference: number;
    /** The original topic is not one of the service's inbound topics. */
    notInbound: number;
  };
  /** Records without readable dead-letter headers; with the first problem met. */
  unreadable: { count: number; first?: string };
}

/**
 * Sorts the dead-letter topic's records into those to redrive and the reasons for the rest.
 * `redriven`: the redrive log's keys. `inboundTopics`: the only topics a redrive may write to, so
 * that a header cannot send a record anywhere else.
 */
export class DeadLetterSelection {
  private readonly selection: Selection = {
    candidates: [],
    rows: [],
    read: 0,
    alreadyRedriven: 0,
    skipped: { reference: 0, notInbound: 0 },
    unreadable: { count: 0 },
  };
  private readonly rows = new Map<string, TallyRow>();

  constructor(
    private readonly options: RedriveOptions,
    private readonly redriven: ReadonlySet<string>,
    private readonly inboundTopics: ReadonlySet<string>,
  ) {}

  add(topic: string, partition: number, message: KafkaMessage): void {
    const s = this.selection;
    s.read++;
    let info: DeadLetterInfo | undefined;
    try {
      info = readDeadLetterHeaders(message.headers);
      if (!info) throw new Error('no dead-letter headers');
    } catch (error) {
      s.unreadable.count++;
      s.unreadable.first ??= `${topic}/${partition}@${message.offset}: ${(error as Error).message}`;
      return;
    }
    const row = this.row(info.errorCode ?? '(none)', info.originalTopic);
    row.total++;
    const timestamp = Number(message.timestamp);
    if (!this.matches(info, timestamp)) return;
    if (this.redriven.has(logKey(topic, partition, message.offset))) {
      row.alreadyRedriven++;
      s.alreadyRedriven++;
    } else if (info.valueReplaced) {
      s.skipped.reference++;
    } else if (!this.inboundTopics.has(info.originalTopic)) {
      s.skipped.notInbound++;
    } else {
      row.selected++;
      s.candidates.push({
        at: { topic, partition, offset: message.offset },
        timestamp,
        info,
        key: message.key,
        value: message.value,
        headers: originalHeaders(message.headers ?? {}),
      });
    }
  }

  result(): Selection {
    const rows = [...this.rows.values()].sort(
      (a, b) => a.code.localeCompare(b.code) || a.topic.localeCompare(b.topic),
    );
    return { ...this.selection, rows };
  }

  private matches(info: DeadLetterInfo, timestamp: number): boolean {
    const { codes, topics, since, until } = this.options;
    if (codes.length > 0 && !codes.includes(info.errorCode ?? '')) return false;
    if (topics.length > 0 && !topics.includes(info.originalTopic)) return false;
    if (since !== undefined && timestamp < since) return false;
    if (until !== undefined && timestamp >= until) return false;
    return true;
  }

  private row(code: string, topic: string): TallyRow {
    const key = `${code}\n${topic}`;
    let row = this.rows.get(key);
    if (!row) {
      row = { code, topic, total: 0, selected: 0, alreadyRedriven: 0 };
      this.rows.set(key, row);
    }
    return row;
  }
}

/** The dead letter's headers without those the dead-lettering added: the original record's. */
export function originalHeaders(headers: IHeaders): IHeaders {
  return Object.fromEntries(
    Object.entries(headers).filter(
      ([name, value]) => value !== undefined && !isDeadLetterHeader(name),
    ),
  );
}
