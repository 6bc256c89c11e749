import pino, { type Logger } from "pino";

/**
 * The one operational logger. JSON lines on stderr (level from GAPWATCH_LOG_LEVEL, default info),
 * so stdout stays free for what a command prints to its user.
 * Secrets never reach it: callers log aliases and URLs, never credentials.
 */
export const logger: Logger = pino(
  {
    name: "gapwatch",
    level: process.env.GAPWATCH_LOG_LEVEL ?? "info",
    redact: { paths: ["password", "*.password", "secret", "*.secret", "authorization", "*.authorization"], censor: "[redacted]" },
  },
  pino.destination(2),
);

/** A child logger for one module, e.g. `getLogger("sandbox")`. */
export function getLogger(module: string): Logger {
  return logger.child({ module });
}
