import { performance } from "node:perf_hooks";

/**
 * The read model as text for the store (a collector publishes it, web instances read it): JSON, where a bigint is
 * a string of the marker `\u0001` and its decimal digits (the bulk of a model is offsets: a string parses several
 * times faster than an object), and the other values JSON cannot carry are tagged objects `{"$t": tag, "v": …}` —
 * Map and Set (entry arrays, their keys and values encoded the same way), BigInt64Array and Uint8Array (the
 * progress window's arrays, base64 of their bytes; every platform Node runs Gapwatch on is little-endian),
 * non-finite numbers. Data that looks like an encoding is tagged too — a string starting with the marker, a plain
 * object with a `$t` key — so decoding never mistakes data for it. As in JSON, an object property whose value is
 * undefined is left out; nothing else changes on a round trip.
 *
 * The text is lines of JSON (JSON escapes every newline inside a string): an array of more than `splitAbove` items
 * is written as lines of about `lineChars` characters (each an array of some of its items, in order), and stands as
 * `{"$t": "lines", "v": [line numbers]}` where it was. A line refers only to lines before it; the last is the value.
 * So a web instance decodes a model of 10,000 partitions (tens of MiB) a line at a time and serves requests between
 * its slices, instead of blocking every page for the whole decode.
 */
type Tagged = { $t: "map"; v: [unknown, unknown][] } | { $t: "set"; v: unknown[] } | { $t: "i64" | "u8"; v: string }
  | { $t: "num"; v: string } | { $t: "obj"; v: [string, unknown][] } | { $t: "str"; v: string }
  | { $t: "lines"; v: number[] };

/** Starts an encoded bigint; a control character no topic, group or message starts with in practice. */
const bigintMarker = "\u0001";
const bigintMarkerCode = 1;
/** Longer arrays go in lines of their own; shorter ones are not worth a line. */
const splitAbove = 256;
/** About 256 KiB of JSON a line: one parses in a few milliseconds. */
const lineChars = 256 * 1024;
/** How long decoding runs before it lets the event loop serve what waits. */
const sliceMs = 8;

/** Encodes any value the read model holds (see above) as lines of JSON. */
export function encodeTagged(value: unknown): string {
  const lines: string[] = [];
  /** The array a line is being written of (not to be split again). */
  let writing: unknown = null;
  /** The line numbers of split arrays: more than `splitAbove` of them (a 100,000-partition model) stay one array. */
  const lineNumbers = new WeakSet<unknown[]>();
  const splitArray = (items: unknown[]): unknown => {
    if (items === writing || lineNumbers.has(items)) return items;
    const numbers: number[] = [];
    // Items a line, from the size of the line before (an array's items are alike): one stringify per line.
    let take = 16;
    for (let start = 0; start < items.length; ) {
      const batch = items.slice(start, start + take);
      writing = batch;
      // Nested long arrays become lines while this one is written, so they come before the line that refers to them.
      const text = JSON.stringify(batch, replacer);
      numbers.push(lines.push(text) - 1);
      start += batch.length;
      take = Math.max(1, Math.round((batch.length * lineChars) / text.length));
    }
    lineNumbers.add(numbers);
    return { $t: "lines", v: numbers } satisfies Tagged;
  };
  const replacer = createReplacer(splitArray);
  lines.push(JSON.stringify(value, replacer));
  return lines.join("\n");
}

/**
 * Decodes text written by encodeTagged into an equal value (new Maps, Sets, typed arrays and bigints), a line at a
 * time, yielding to the event loop every `sliceMs`.
 */
export async function decodeTagged(text: string): Promise<unknown> {
  const lines: unknown[] = [];
  let sliceStart = performance.now();
  for (let start = 0; ; ) {
    const end = text.indexOf("\n", start);
    // A plain parse and one walk that rebuilds only the encoded values: several times faster than a JSON.parse
    // reviver, which V8 calls for every value (a 10,000-partition model holds millions).
    lines.push(reviveValue(JSON.parse(end < 0 ? text.slice(start) : text.slice(start, end)), lines));
    if (end < 0) return lines[lines.length - 1];
    start = end + 1;
    if (performance.now() - sliceStart >= sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
}

/** JSON.stringify's replacer (see above); `splitLong` writes an array of more than `splitAbove` items as lines. */
function createReplacer(splitLong: (items: unknown[]) => unknown): (key: string, value: unknown) => unknown {
  // One function for every value (millions in a large model), not a wrapper around another.
  return (_key, value) => {
    switch (typeof value) {
      case "bigint":
        return bigintMarker + value.toString();
      case "string":
        // Without its first marker (else this tag's own value would be tagged again, without end).
        return value.charCodeAt(0) === bigintMarkerCode ? ({ $t: "str", v: value.slice(1) } satisfies Tagged) : value;
      case "number":
        return Number.isFinite(value) ? value : ({ $t: "num", v: String(value) } satisfies Tagged);
      case "object":
        if (value === null) return value;
        if (Array.isArray(value)) return value.length > splitAbove ? splitLong(value) : value;
        if (value instanceof Map) return { $t: "map", v: [...value] };
        if (value instanceof Set) return { $t: "set", v: [...value] };
        if (value instanceof BigInt64Array) return { $t: "i64", v: encodeBytes(value) };
        if (value instanceof Uint8Array) return { $t: "u8", v: encodeBytes(value) };
        // A real object with a "$t" key is data, not a tag: its entries go in a tag of their own.
        return Object.hasOwn(value, "$t") ? { $t: "obj", v: Object.entries(value) } : value;
      default:
        return value;
    }
  };
}

function encodeBytes(array: BigInt64Array | Uint8Array): string {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength).toString("base64");
}

/**
 * Rebuilds the encoded values under `value`, innermost first, in place (the parsed tree is ours); `lines` are the
 * lines decoded before this one. A string is written back only when it is a bigint (most strings are names).
 */
function reviveValue(value: unknown, lines: readonly unknown[]): unknown {
  if (typeof value === "string") return value.charCodeAt(0) === bigintMarkerCode ? parseBigint(value) : value;
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === "string") {
        if (item.charCodeAt(0) === bigintMarkerCode) value[i] = parseBigint(item);
      } else if (typeof item === "object" && item !== null) value[i] = reviveValue(item, lines);
    }
    return value;
  }
  const record = value as Record<string, unknown>;
  if (Object.hasOwn(record, "$t")) return reviveTag(record as Tagged, lines);
  for (const key in record) {
    const item = record[key];
    if (typeof item === "string") {
      if (item.charCodeAt(0) === bigintMarkerCode) record[key] = parseBigint(item);
    } else if (typeof item === "object" && item !== null) record[key] = reviveValue(item, lines);
  }
  return record;
}

/**
 * The bigint of an encoded one (marker and decimal digits). Up to 15 digits, exact in a double: summing them is
 * faster than BigInt of a substring (a 10,000-partition model holds some 760,000 bigints).
 */
function parseBigint(text: string): bigint {
  if (text.length > 16 || text.charCodeAt(1) === 45) return BigInt(text.slice(1));
  let n = 0;
  for (let i = 1; i < text.length; i++) n = n * 10 + text.charCodeAt(i) - 48;
  return BigInt(n);
}

function reviveTag(tagged: Tagged, lines: readonly unknown[]): unknown {
  switch (tagged.$t) {
    case "lines":
      return joinLines(tagged.v, lines);
    case "str":
      return bigintMarker + String(reviveValue(tagged.v, lines));
    case "num":
      return Number(tagged.v);
    case "map":
      return new Map(reviveValue(tagged.v, lines) as [unknown, unknown][]);
    case "set":
      return new Set(reviveValue(tagged.v, lines) as unknown[]);
    case "i64": {
      const bytes = Buffer.from(tagged.v, "base64");
      // A copy: the decoded Buffer may be a view into Node's shared pool, not 8-byte aligned.
      return new BigInt64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    }
    case "u8":
      return new Uint8Array(Buffer.from(tagged.v, "base64"));
    case "obj":
      return Object.fromEntries(reviveValue(tagged.v, lines) as [string, unknown][]);
    default:
      throw new Error(`unknown tag "${String((tagged as { $t: unknown }).$t)}" in an encoded read model`);
  }
}

/** The items of an array written as lines (each line decoded already: an array of its items). */
function joinLines(numbers: readonly number[], lines: readonly unknown[]): unknown[] {
  const items: unknown[] = [];
  for (const n of numbers) {
    const line = lines[n];
    if (!Array.isArray(line)) throw new Error(`line ${n} of an encoded read model is missing or not an array`);
    for (const item of line) items.push(item);
  }
  return items;
}
