/** The CLI's exit codes: part of its interface, so scripts can rely on them (listed in `--help`). */
export const ExitCode = Object.freeze({
  /** Done: input ended and everything was sent, `--count` reached, or `/quit`. */
  Ok: 0,
  /** Gave up: retries exhausted, refused (401/403), or closed by the server for good. */
  GaveUp: 1,
  /** Bad command line, or no WebSocket implementation available. */
  Usage: 2,
  /** Some messages were not delivered (each was reported by a `drop` line). */
  Undelivered: 3,
  /** `--timeout` reached. */
  Timeout: 4,
  /** Interrupted by Ctrl-C (128 + SIGINT, the shell convention). */
  Interrupted: 130,
});
