import pino, { type LogFn, type Logger } from "pino";
import { stripUserInfoDeep } from "./redact";

/**
 * The one operational logger. JSON lines on stderr (level from GAPWATCH_LOG_LEVEL, default info),
 * so stdout stays free for what a command prints to its user.
 * Secrets never reach it: callers log aliases and URLs, never credentials; key names that hold secrets are censored,
 * and user-info is stripped from every URL in every argument of every call (a URL with `user:pass@` can come from
 * config or from an error message).
 */
export const logger: Logger = pino(
  {
    name: "gapwatch",
    level: process.env.GAPWATCH_LOG_LEVEL ?? "info",
    redact: { paths: ["password", "*.password", "secret", "*.secret", "clientSecret", "*.clientSecret", "authorization", "*.authorization"], censor: "[redacted]" },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((arg: unknown) => stripUserInfoDeep(arg)) as Parameters<LogFn>);
      },
    },
  },
  pino.destination(2),
);

/** A child logger for one module, e.g. `getLogger("sandbox")`. */
export function getLogger(module: string): Logger {
  return logger.child({ module });
}
