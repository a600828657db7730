import { Type } from 'class-transformer';
import { IsIn, IsInt, Max, Min } from 'class-validator';
import { Default, MODES, type Mode } from '../default.decorator';

export const LOG_LEVELS = ['error', 'warn', 'log', 'debug', 'verbose'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * The service's own settings: its mode, its logs and its HTTP port.
 *
 * The first of the areas that `EnvironmentVariables` is built from (see `environment.dto.ts`).
 */
export class ServiceEnvironment {
  /**
   * `local` fills in loopback defaults for the broker, the vendor (the sandbox), its keys and the
   * sender; `production` requires them.
   *
   * Chooses the defaults, so it has none of its own here: `loadConfig` takes `production`.
   */
  @IsIn(MODES)
  MAILBRIDGE_MODE!: Mode;

  /** The most verbose level written; `log` is pino's `info` and `verbose` pino's `trace`. */
  @Default('log')
  @IsIn(LOG_LEVELS)
  LOG_LEVEL!: LogLevel;

  /** `json`: one object per line, for a log collector; `pretty`: text for a terminal. */
  @Default('json', { local: 'pretty' })
  @IsIn(LOG_FORMATS)
  LOG_FORMAT!: LogFormat;

  /**
   * The most the service holds of log lines stdout has not taken yet: past it a line is dropped,
   * counted and reported, rather than kept in memory while stdout's reader falls behind.
   */
  @Default('8388608')
  @Type(() => Number)
  @IsInt()
  @Min(65536)
  @Max(134217728)
  LOG_BUFFER_MAX_BYTES!: number;

  /** Port of `/health/*` and `/metrics`; `0` takes any free port. */
  @Default('3000')
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  HTTP_PORT!: number;
}
