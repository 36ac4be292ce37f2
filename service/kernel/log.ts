/** One structured log entry; never a token, a key or message text. */
export type LogEntry = { level: 'info' | 'warn' | 'error'; msg: string } & Record<
  string,
  string | number | boolean | null
>;

/** The service's structured log, as its parts write to it (every room may: the kernel holds its type). */
export type Log = (entry: LogEntry) => void;
