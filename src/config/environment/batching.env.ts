import { Type } from 'class-transformer';
import { IsIn, IsInt, Matches, Min } from 'class-validator';
import { Default } from '../default.decorator';
import { ConsumerEnvironment } from './consumer.env';

export const CONTACT_LIST_LATE_POLICIES = ['follow-up', 'next-window'] as const;
export type ContactListLatePolicy = (typeof CONTACT_LIST_LATE_POLICIES)[number];

/**
 * How events are gathered into vendor requests: campaign batches (`BATCH_*`), contact-list
 * windows (`CONTACT_LIST_*`), and the pauses after the vendor fails (`PAUSE_ON_*`).
 */
export class BatchingEnvironment extends ConsumerEnvironment {
  /**
   * The longest a recipient waits for others to share its campaign request while the consumer keeps
   * up.
   */
  @Default('100')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  BATCH_LINGER_MS!: number;

  /**
   * While the consumer is behind, how long a campaign request not yet full may keep gathering past
   * `BATCH_LINGER_MS`, as long as records wait that would fill it; `0`: never.
   */
  @Default('1000')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  BATCH_MAX_LINGER_MS!: number;

  /** Recipients at which a gathering campaign request is sent. */
  @Default('1000')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  BATCH_MAX_RECIPIENTS!: number;

  /** Body size at which a gathering campaign request is sent. */
  @Default('4194304')
  @Type(() => Number)
  @IsInt()
  @Min(1024)
  BATCH_MAX_BYTES!: number;

  /**
   * Time window (of the orders' own time) whose customers make one contact list, created when it
   * closes.
   */
  @Default('10000')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  CONTACT_LIST_WINDOW_MS!: number;

  /**
   * Members of one list; a full list is created at once and its window continues in `<name>-2`,
   * `-3`, …
   */
  @Default('1000')
  @Type(() => Number)
  @IsInt()
  @Min(1)
  CONTACT_LIST_MAX_MEMBERS!: number;

  /** How far ahead of our clock an order's `placedAt` may be and still choose its own window. */
  @Default('30000')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  CONTACT_LIST_CLOCK_SKEW_MS!: number;

  /**
   * An order arriving once its window's list is being created: into a follow-up list of its
   * window (`<list>-late-<n>`), or into the window of the present.
   */
  @Default('follow-up')
  @IsIn(CONTACT_LIST_LATE_POLICIES)
  CONTACT_LIST_LATE_POLICY!: ContactListLatePolicy;

  /** Name of the lists; `{window}` becomes the window's start, such as `20261121T1000Z`. */
  @Default('new-customers-{window}')
  @Matches(/\{window\}/, { message: 'CONTACT_LIST_NAME_PATTERN must contain {window}' })
  CONTACT_LIST_NAME_PATTERN!: string;

  /** Pause after a vendor request failed all its retries. */
  @Default('5000')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  PAUSE_ON_VENDOR_FAILURE_MS!: number;

  /** Pause after the vendor refused the keys (401 or 403). */
  @Default('60000')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  PAUSE_ON_AUTH_FAILURE_MS!: number;
}
