import { Type } from 'class-transformer';
import { IsIn, IsInt, Max, Min } from 'class-validator';
import { Default } from '../default.decorator';
import { SenderEnvironment } from './sender.env';

export const START_POSITIONS = ['latest', 'earliest'] as const;
export type StartPosition = (typeof START_POSITIONS)[number];

/**
 * How the consumer reads (`CONSUMER_*`): how much it holds at once, where it starts, and how long
 * it may make no progress; and how large one event may be.
 */
export class ConsumerEnvironment extends SenderEnvironment {
  /**
   * Records held at once per instance, fetched and not yet at their outcome; a full window stops
   * fetching until it drains to three quarters.
   *
   * 2,000 keep a full campaign batch gathering while the last one is at the
   * vendor (about 1,000 recipients per request in the benchmark's backlog) and fit, with the heap
   * limit the image sets, in a 256 MB container.
   */
  @Default('2000')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100000)
  CONSUMER_MAX_IN_FLIGHT!: number;

  /**
   * Bytes (keys and values) of the records held at once; one larger record still goes through,
   * alone.
   *
   * With CONSUMER_MAX_IN_FLIGHT it bounds
   * what a backlog costs in memory: 16 MiB of events is a few times that on the heap, well inside
   * a 256 MB container.
   */
  @Default('16777216')
  @Type(() => Number)
  @IsInt()
  @Min(65536)
  CONSUMER_MAX_IN_FLIGHT_BYTES!: number;

  /**
   * How often finished offsets are committed (also at a rebalance and at stop); a crash repeats at
   * most this much.
   */
  @Default('1000')
  @Type(() => Number)
  @IsInt()
  @Min(50)
  CONSUMER_COMMIT_INTERVAL_MS!: number;

  /** Partitions whose batches are handled at once; `CONSUMER_MAX_IN_FLIGHT` still bounds records. */
  @Default('16')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1024)
  CONSUMER_PARTITIONS_CONCURRENTLY!: number;

  /**
   * Where a group without a committed offset starts reading a partition.
   *
   * Production starts at the
   * end: a new group deployed against an existing topic must not email everyone still in retention.
   */
  @Default('latest', { local: 'earliest' })
  @IsIn(START_POSITIONS)
  CONSUMER_START_FROM!: StartPosition;

  /**
   * No progress for this long, with records waiting and the vendor gate open, fails
   * `/health/live`.
   */
  @Default('300000')
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  LIVENESS_STALL_MS!: number;

  /** Larger records are dead-lettered as `OVERSIZED`. */
  @Default('262144')
  @Type(() => Number)
  @IsInt()
  @Min(1024)
  MAX_EVENT_BYTES!: number;
}
