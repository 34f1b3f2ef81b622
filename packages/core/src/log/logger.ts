/**
 * Structured logging. Every record is a message plus fields; loggers derived with `with()` carry fields such as
 * controller, cluster, namespace and name into every record. The default sink writes JSON lines to stderr.
 */

import { thrownText } from './thrown.js';

/** Severity of a log line; lines below the logger's level are dropped. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
/** Structured fields of a log line, written as JSON properties beside `msg`. */
export type LogFields = Record<string, unknown>;

/**
 * Structured logging: a message plus fields, at four levels; `with(fields)` adds fields to every later record.
 */
export interface Logger {
  /** Detail for whoever debugs (hidden at the default level). */
  debug(msg: string, fields?: LogFields): void;
  /** Something an operator may want to know happened. */
  info(msg: string, fields?: LogFields): void;
  /** Something went wrong and is being handled (retried, skipped). */
  warn(msg: string, fields?: LogFields): void;
  /** Something failed; `err` is logged by name and message. */
  error(msg: string, err?: unknown, fields?: LogFields): void;
  /** A logger that adds `fields` to every record. */
  with(fields: LogFields): Logger;
}

/** Receives finished records; replace it to route logs elsewhere. */
export type LogSink = (level: LogLevel, msg: string, fields: LogFields) => void;

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function errorFields(err: unknown): LogFields {
  if (err instanceof Error) return { error: err.message, errorName: err.name };
  return err === undefined ? {} : { error: thrownText(err) };
}

class SinkLogger implements Logger {
  constructor(
    private readonly sink: LogSink,
    private readonly minLevel: LogLevel,
    private readonly fields: LogFields,
  ) {}
  private emit(level: LogLevel, msg: string, fields?: LogFields): void {
    if (order[level] < order[this.minLevel]) return;
    this.sink(level, msg, fields ? { ...this.fields, ...fields } : this.fields);
  }
  debug(msg: string, fields?: LogFields): void {
    this.emit('debug', msg, fields);
  }
  info(msg: string, fields?: LogFields): void {
    this.emit('info', msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    this.emit('warn', msg, fields);
  }
  error(msg: string, err?: unknown, fields?: LogFields): void {
    this.emit('error', msg, { ...errorFields(err), ...fields });
  }
  with(fields: LogFields): Logger {
    return new SinkLogger(this.sink, this.minLevel, { ...this.fields, ...fields });
  }
}

/** Writes one JSON object per line to stderr: `{"level","ts","msg",...fields}`. */
export const jsonLinesSink: LogSink = (level, msg, fields) => {
  process.stderr.write(`${JSON.stringify({ level, ts: new Date().toISOString(), msg, ...fields })}\n`);
};

/** Options of the JSON logger: where lines go, the lowest level written, and fields every line carries. */
export interface LoggerOptions {
  sink?: LogSink;
  /** Default: the `MCR_LOG_LEVEL` environment variable, else `info`. */
  level?: LogLevel;
  fields?: LogFields;
}

/**
 * A logger writing JSON lines (to `options.sink`, default stderr) at `options.level`, else `MCR_LOG_LEVEL`, else info.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const envLevel = process.env['MCR_LOG_LEVEL'] as LogLevel | undefined;
  const level = options.level ?? (envLevel && envLevel in order ? envLevel : 'info');
  return new SinkLogger(options.sink ?? jsonLinesSink, level, options.fields ?? {});
}

/** A logger that drops everything. */
export const silentLogger: Logger = createLogger({ sink: () => {}, level: 'error' });
