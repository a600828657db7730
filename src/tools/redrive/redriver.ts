import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kafka, Message, Producer } from 'kafkajs';
import type { KafkaToolConfig } from '../../config/config.loader';
import { DeadLetterSelection, type Candidate, type Selection } from './dead-letter-selection';
import type { RedriveOptions } from './redrive-options';
import {
  defaultLogTopic,
  ensureLogTopic,
  logKey,
  logTopicExists,
  type RedriveLogEntry,
} from './redrive-log';
import { readToEnd } from './topic-reader';

/** Records sent in one transaction at most; fewer when the rate is lower. */
const MAX_CHUNK = 100;

export interface RedriveSummary extends Omit<Selection, 'candidates'> {
  dryRun: boolean;
  deadLetterTopic: string;
  logTopic: string;
  /** Dead letters that pass the filters and can go: sent, or (dry run) that would be. */
  selected: number;
  /** Dead letters sent back to their topic by this run. */
  redriven: number;
}

/**
 * One run of `npm run redrive`. Every redriven record and its entry on the redrive log are
 * written in one Kafka transaction, under a transactional id that is the same for every run
 * against the same dead-letter topic. Starting a run fences any other still running (its next
 * write fails, and it stops) and aborts that run's open transaction; only then does this run read
 * the log, so it sees everything the other run committed, and nothing the other can still add.
 * The same dead letter is therefore never redriven twice, by runs one after the other or at once.
 */
export class Redriver {
  private readonly run = randomUUID();
  private readonly deadLetterTopic: string;
  private readonly logTopic: string;

  constructor(
    private readonly kafka: Kafka,
    private readonly config: KafkaToolConfig,
    private readonly options: RedriveOptions,
    private readonly print: (line: string) => void,
  ) {
    this.deadLetterTopic = config.topics.deadLetter;
    this.logTopic = options.logTopic ?? defaultLogTopic(this.deadLetterTopic);
  }

  async redrive(): Promise<RedriveSummary> {
    if (this.options.dryRun) return this.dryRun();
    await ensureLogTopic(this.kafka, this.logTopic, this.config);
    const producer = this.kafka.producer({
      transactionalId: `mailbridge-redrive:${this.deadLetterTopic}`,
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    try {
      // kafkajs registers the transactional id (fencing any other run) when the first
      // transaction begins, not on connect: begin an empty one now, before the log is read.
      await (await producer.transaction()).abort();
      const selection = await this.select([this.logTopic]);
      this.report(selection);
      const redriven = await this.send(producer, selection.candidates);
      this.print(
        `redriven ${redriven} dead letters from ${this.deadLetterTopic}; recorded on ${this.logTopic}`,
      );
      return this.summary(selection, redriven);
    } finally {
      await producer.disconnect();
    }
  }

  private async dryRun(): Promise<RedriveSummary> {
    const logExists = await logTopicExists(this.kafka, this.logTopic);
    const selection = await this.select(logExists ? [this.logTopic] : []);
    this.report(selection);
    const shown = selection.candidates.slice(0, this.options.show);
    for (const c of shown) this.print(`  would redrive ${describe(c)}`);
    const more = selection.candidates.length - shown.length;
    if (more > 0) this.print(`  … and ${more} more (--show N lists more)`);
    this.print(`dry run: ${selection.candidates.length} would be redriven; nothing was sent`);
    return this.summary(selection, 0);
  }

  private async select(logTopics: string[]): Promise<Selection> {
    const redriven = new Set<string>();
    const letters: Array<Parameters<DeadLetterSelection['add']>> = [];
    await readToEnd(
      this.kafka,
      [...logTopics, this.deadLetterTopic],
      (topic, partition, message) => {
        if (topic === this.deadLetterTopic) letters.push([topic, partition, message]);
        else if (message.key) redriven.add(message.key.toString('utf8'));
      },
      { groupPrefix: `${this.config.kafka.groupId}.redrive` },
    );
    const inbound = new Set([
      this.config.topics.userSignedUp,
      this.config.topics.orderPlaced,
      this.config.topics.campaignRequested,
      this.config.topics.contactListRequested,
      this.config.topics.suppressionRequested,
    ]);
    const selection = new DeadLetterSelection(this.options, redriven, inbound);
    for (const letter of letters) selection.add(...letter);
    return selection.result();
  }

  /** Chunks of up to `rate` records (at most {@link MAX_CHUNK}), each one transaction, paced. */
  private async send(producer: Producer, candidates: Candidate[]): Promise<number> {
    const chunkSize = Math.max(1, Math.min(MAX_CHUNK, Math.floor(this.options.rate)));
    const started = Date.now();
    let sent = 0;
    for (let i = 0; i < candidates.length; i += chunkSize) {
      const chunk = candidates.slice(i, i + chunkSize);
      const transaction = await producer.transaction();
      try {
        const byTopic = new Map<string, Message[]>();
        for (const c of chunk) {
          const messages = byTopic.get(c.info.originalTopic) ?? [];
          messages.push({ key: c.key, value: c.value, headers: c.headers });
          byTopic.set(c.info.originalTopic, messages);
        }
        byTopic.set(
          this.logTopic,
          chunk.map((c) => ({
            key: logKey(c.at.topic, c.at.partition, c.at.offset),
            value: JSON.stringify(this.entry(c)),
          })),
        );
        await transaction.sendBatch({
          acks: -1,
          topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
        });
        await transaction.commit();
      } catch (error) {
        await transaction.abort().catch(() => undefined);
        throw new Error(
          `redrive stopped after ${sent} of ${candidates.length} records: ${describeFailure(error)}; ` +
            'what was not committed was not sent, and a new run picks it up',
          { cause: error },
        );
      }
      sent += chunk.length;
      this.print(`  sent ${sent}/${candidates.length}`);
      const due = started + (sent / this.options.rate) * 1000;
      if (i + chunkSize < candidates.length && due > Date.now()) await sleep(due - Date.now());
    }
    return sent;
  }

  private entry(c: Candidate): RedriveLogEntry {
    return {
      deadLetter: c.at,
      original: {
        topic: c.info.originalTopic,
        partition: c.info.originalPartition,
        offset: c.info.originalOffset,
      },
      errorCode: c.info.errorCode,
      redrivenAt: new Date().toISOString(),
      run: this.run,
    };
  }

  private report(s: Selection): void {
    this.print(`read ${s.read} records of ${this.deadLetterTopic} (to its end at the start)`);
    if (s.rows.length > 0) {
      this.print('  code / original topic: in the topic, selected, already redriven');
      for (const r of s.rows) {
        this.print(`  ${r.code} / ${r.topic}: ${r.total}, ${r.selected}, ${r.alreadyRedriven}`);
      }
    }
    if (s.alreadyRedriven > 0) this.print(`skipped ${s.alreadyRedriven}: redriven before`);
    if (s.skipped.reference > 0) {
      this.print(
        `skipped ${s.skipped.reference}: the dead letter holds a reference, not the original value`,
      );
    }
    if (s.skipped.notInbound > 0) {
      this.print(`skipped ${s.skipped.notInbound}: the original topic is not an inbound topic`);
    }
    if (s.unreadable.count > 0) {
      this.print(
        `skipped ${s.unreadable.count} without dead-letter headers (${s.unreadable.first})`,
      );
    }
  }

  private summary(selection: Selection, redriven: number): RedriveSummary {
    const { candidates, ...rest } = selection;
    return {
      ...rest,
      dryRun: this.options.dryRun,
      deadLetterTopic: this.deadLetterTopic,
      logTopic: this.logTopic,
      selected: candidates.length,
      redriven,
    };
  }
}

/** One line per dead letter: where it is, why, where it goes. No value, so no personal data. */
function describe(c: Candidate): string {
  const { info } = c;
  return (
    `${c.at.partition}@${c.at.offset} ${info.errorCode ?? '(no code)'} ` +
    `→ ${info.originalTopic} (was ${info.originalPartition}@${info.originalOffset}), ` +
    `dead-lettered ${new Date(c.timestamp).toISOString()}: ${info.exceptionMessage ?? ''}`
  );
}

/**
 * A run that another run fenced learns it from the broker on its next write: as
 * INVALID_PRODUCER_EPOCH or PRODUCER_FENCED, or, from brokers whose answer kafkajs does not
 * know, as an unknown server error; so the message says that a concurrent run is one cause.
 */
function describeFailure(error: unknown): string {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 10; depth++) {
    const type = (e as { type?: unknown }).type;
    if (type === 'INVALID_PRODUCER_EPOCH' || type === 'PRODUCER_FENCED') {
      return 'another redrive run started and took over';
    }
    e = (e as { cause?: unknown }).cause;
  }
  const message = error instanceof Error ? error.message : String(error);
  return `${message} (also what a redrive run sees when another run started meanwhile)`;
}
