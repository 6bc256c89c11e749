/**
 * Reads a Java .properties file (MM2's mm2.properties) as java.util.Properties.load does: `#` and
 * `!` comments, `key=value`, `key: value` or `key value`, a trailing backslash continuing the
 * line, and the escapes \t \n \r \f \\ \uXXXX. Later keys win, as in Java.
 */
export function parseJavaProperties(text: string): Map<string, string> {
  const props = new Map<string, string>();
  for (const line of joinContinuedLines(text.split(/\r\n|\r|\n/))) {
    const trimmed = line.replace(/^[ \t\f]+/, "");
    if (trimmed === "" || trimmed.startsWith("#") || trimmed.startsWith("!")) continue;
    const [key, value] = splitKeyValue(trimmed);
    props.set(unescapeProperty(key), unescapeProperty(value));
  }
  return props;
}

/** A line ending in an odd number of backslashes continues on the next (its leading blanks dropped). */
function joinContinuedLines(lines: string[]): string[] {
  const out: string[] = [];
  let pending: string | null = null;
  for (const raw of lines) {
    const line: string = pending === null ? raw : pending + raw.replace(/^[ \t\f]+/, "");
    const trailing = /\\+$/.exec(line)?.[0].length ?? 0;
    if (trailing % 2 === 1) pending = line.slice(0, -1);
    else {
      out.push(line);
      pending = null;
    }
  }
  if (pending !== null) out.push(pending);
  return out;
}

/** The key ends at the first unescaped `=`, `:` or blank; the separator and blanks around it are dropped. */
function splitKeyValue(line: string): [string, string] {
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "=" || c === ":" || c === " " || c === "\t" || c === "\f") {
      let rest = line.slice(i).replace(/^[ \t\f]+/, "");
      if (c !== "=" && c !== ":" && (rest.startsWith("=") || rest.startsWith(":"))) rest = rest.slice(1);
      else if (c === "=" || c === ":") rest = rest.slice(1);
      return [line.slice(0, i), rest.replace(/^[ \t\f]+/, "")];
    }
  }
  return [line, ""];
}

const escapes: Record<string, string> = { t: "\t", n: "\n", r: "\r", f: "\f" };

function unescapeProperty(value: string): string {
  return value.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_, esc: string) => {
    if (esc.length === 5) return String.fromCharCode(parseInt(esc.slice(1), 16));
    return escapes[esc] ?? esc;
  });
}
