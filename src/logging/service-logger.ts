import { EventEmitter } from 'node:events';
import type { LoggerService } from '@nestjs/common';
import { pino, type DestinationStream, type Level, type Logger } from 'pino';
import { isColorSupported, build as prettyStream } from 'pino-pretty';
import type { LogFormat, LogLevel } from '../config/environment/service.env';
import { DroppedLines } from './dropped-lines';
import { LogScrubber } from './log-scrubber';

export interface LogSettings {
  level: LogLevel;
  format: LogFormat;
  /** Values that must never reach the log (the vendor keys, the SASL password, …). */
  secrets: readonly string[];
  /** The most the JSON destination holds of lines stdout has not taken yet (bytes). */
  bufferMaxBytes: number;
}

/** Child loggers kept, one per Nest context; all are forgotten when there would be more. */
const MAX_CONTEXTS = 256;

/** Nest's level names (the LOG_LEVEL values) in pino's. */
const PINO_LEVEL: Record<LogLevel, Level> = {
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

/**
 * The service's logger (a {@link ServiceLogger} on pino), writing one JSON object per line
 * (`LOG_FORMAT=json`) or coloured text for a terminal (`pretty`, colours only when the output is
 * one). Every line passes the scrubber first, so no key and no full recipient address is
 * written, whatever a message holds; one scrubber serves the lines and the contexts.
 */
export function createServiceLogger(
  settings: LogSettings,
  destination: DestinationStream = defaultDestination(settings),
): ServiceLogger {
  const scrubber = new LogScrubber(settings.secrets);
  const logger = pino(
    {
      name: 'mailbridge',
      level: PINO_LEVEL[settings.level],
      timestamp: isoTimeOncePerMillisecond(),
      formatters: { level: (label) => ({ level: label }) },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((arg) => scrubber.scrubFields(arg)) as typeof args);
        },
      },
    },
    destination,
  );
  const dropped = new DroppedLines(settings.bufferMaxBytes, (message) =>
    logger.child({ context: 'ServiceLogger' }).warn(message),
  );
  if (destination instanceof EventEmitter) dropped.watch(destination);
  return new ServiceLogger(logger, scrubber, dropped);
}

/**
 * pino's `isoTime` (`,"time":"2026-11-26T10:00:00.000Z"`), formatted once per millisecond: the
 * lines of one vendor request's events are written in a burst and share their time text.
 */
export function isoTimeOncePerMillisecond(now: () => number = Date.now): () => string {
  let at = Number.NaN;
  let text = '';
  return () => {
    const ms = now();
    if (ms !== at) {
      at = ms;
      text = `,"time":"${new Date(ms).toISOString()}"`;
    }
    return text;
  };
}

function defaultDestination({ format, bufferMaxBytes }: LogSettings): DestinationStream {
  if (format === 'pretty') {
    return prettyStream({
      // colorette's judgement (NO_COLOR, TERM=dumb, FORCE_COLOR), and only on a terminal.
      colorize: isColorSupported && process.stdout.isTTY === true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,name,context',
      messageFormat: '{if context}[{context}] {end}{msg}',
      singleLine: true,
    });
  }
  return bufferedDestination(1, bufferMaxBytes);
}

/** The most one write of the log destination carries. */
const MAX_WRITE = 1024 * 1024;

/**
 * Lines written to `fd` in the background: lines logged while a write is under way go out
 * together in the next one, so a line per event costs no write call of its own. pino flushes
 * what is pending when the process exits.
 *
 * One write at a time, the next started from the event loop when the last completes, each of
 * at most `maxWrite` bytes. With sonic-boom's small default, a service whose event-loop turns run
 * long writes less per turn than it logs, even into a file, and the lines pile up on the heap
 * until it runs out; `MAX_WRITE` lets one write carry a busy turn's lines. What waits is bounded
 * all the same: past `maxBytes` a line is dropped (sonic-boom's `drop` event, which
 * {@link DroppedLines} counts).
 */
export function bufferedDestination(
  fd: number,
  maxBytes: number,
): ReturnType<typeof pino.destination> {
  return pino.destination({ dest: fd, sync: false, maxLength: maxBytes, maxWrite: MAX_WRITE });
}

/**
 * Nest's `LoggerService` on pino, so that every `new Logger(context)` in the code, Nest's own
 * lines and kafkajs' (through `kafka.provider.ts`) come out of one logger. A message may be an
 * object: its fields become the line's fields (the per-event lines do this), `msg` its text.
 */
export class ServiceLogger implements LoggerService {
  /** A child logger per Nest context, which pino writes without copying each line's fields. */
  private readonly contexts = new Map<string, Logger>();

  constructor(
    readonly pino: Logger,
    /** For the contexts: a child's bindings are written as they are, not through pino's hook. */
    private readonly scrubber: LogScrubber,
    private readonly dropped: DroppedLines,
  ) {}

  /** Lines dropped because stdout was not read fast enough (see {@link DroppedLines}). */
  get droppedLines(): number {
    return this.dropped.total;
  }

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  /** Nest calls `(message, context)`, and `(message, stack, context)` for errors. */
  private write(level: Level, message: unknown, params: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const last = params.at(-1);
    const context = typeof last === 'string' ? last : undefined;
    const first = params.length > (context === undefined ? 0 : 1) ? params[0] : undefined;
    const logger = this.loggerFor(context);
    if (message instanceof Error) {
      logger[level]({ err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      logger[level](message);
    } else if (typeof first === 'string') {
      logger[level]({ stack: first }, String(message));
    } else {
      logger[level](String(message));
    }
  }

  private loggerFor(context: string | undefined): Logger {
    if (context === undefined) return this.pino;
    let child = this.contexts.get(context);
    if (!child) {
      // Contexts are class names, a few dozen; a caller that made them up cannot grow this.
      if (this.contexts.size >= MAX_CONTEXTS) this.contexts.clear();
      child = this.pino.child({ context: this.scrubber.scrub(context) });
      this.contexts.set(context, child);
    }
    return child;
  }
}
