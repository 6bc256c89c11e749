/**
 * The one place that takes credentials out of text. A URL may carry user-info (`http://user:pass@host`); every
 * string that can reach a log line, an error, a page or an API response passes through `stripUrlUserInfo` first
 * (the logger does it for every log call, lib/connect for its errors, the views for the URLs they show).
 */
const userInfoPattern = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]*@/gi;

/** `text` with the user-info of every URL in it removed: `http://u:p@h:8083/x` → `http://h:8083/x`. */
export function stripUrlUserInfo(text: string): string {
  return text.replace(userInfoPattern, "$1");
}

/**
 * A copy of a log argument with user-info stripped from every string in it (objects and arrays to a small depth;
 * Errors become `{type, message, stack}`, as pino's serializer would show them). Other values are returned as given.
 */
export function stripUserInfoDeep(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return stripUrlUserInfo(value);
  if (value instanceof Error) {
    return { type: value.name, message: stripUrlUserInfo(value.message), stack: value.stack ? stripUrlUserInfo(value.stack) : undefined };
  }
  if (depth >= 6 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item: unknown) => stripUserInfoDeep(item, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, stripUserInfoDeep(item, depth + 1)]));
}
