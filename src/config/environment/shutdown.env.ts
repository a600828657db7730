import { Type } from 'class-transformer';
import { IsInt, IsOptional, Min } from 'class-validator';
import { Default } from '../default.decorator';
import { IdempotencyEnvironment } from './idempotency.env';

/** How long a stop may take (`SHUTDOWN_*`), and how much of it the vendor's requests may have. */
export class ShutdownEnvironment extends IdempotencyEnvironment {
  /**
   * How long a stop waits for in-flight records; the whole stop ends within this plus 5 s.
   *
   * Not at all while Redis or the broker is unreachable: those records stay uncommitted.
   */
  @Default('15000')
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  SHUTDOWN_TIMEOUT_MS!: number;

  /**
   * How long a stop waits for vendor requests already written before aborting them; unset, 5 s or
   * a third of SHUTDOWN_TIMEOUT_MS, whichever is shorter.
   *
   * Below SHUTDOWN_TIMEOUT_MS, so that the stop ends within it whatever the vendor does; an
   * aborted request's fate is unknown (ambiguous).
   */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  SHUTDOWN_VENDOR_WAIT_MS?: number;
}
