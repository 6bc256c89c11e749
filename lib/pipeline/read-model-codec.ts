/**
 * The read model as text for the store (a collector publishes it, web instances read it): JSON, where a bigint is
 * a string of the marker `\u0001` and its decimal digits (the bulk of a model is offsets: a string parses several
 * times faster than an object), and the other values JSON cannot carry are tagged objects `{"$t": tag, "v": …}` —
 * Map and Set (entry arrays, their keys and values encoded the same way), BigInt64Array and Uint8Array (the
 * progress window's arrays, base64 of their bytes; every platform Node runs Gapwatch on is little-endian),
 * non-finite numbers. Data that looks like an encoding is tagged too — a string starting with the marker, a plain
 * object with a `$t` key — so decoding never mistakes data for it. As in JSON, an object property whose value is
 * undefined is left out; nothing else changes on a round trip.
 */
type Tagged = { $t: "map"; v: [unknown, unknown][] } | { $t: "set"; v: unknown[] } | { $t: "i64" | "u8"; v: string }
  | { $t: "num"; v: string } | { $t: "obj"; v: [string, unknown][] } | { $t: "str"; v: string };

/** Starts an encoded bigint; a control character no topic, group or message starts with in practice. */
const bigintMarker = "\u0001";
const bigintMarkerCode = 1;

/** Encodes any value the read model holds (see above) as JSON text. */
export function encodeTagged(value: unknown): string {
  return JSON.stringify(value, replaceValue);
}

/** Decodes text written by encodeTagged into an equal value (new Maps, Sets, typed arrays and bigints). */
export function decodeTagged(text: string): unknown {
  // A plain parse and one walk that rebuilds only the encoded values: several times faster than a JSON.parse
  // reviver, which V8 calls for every value (a 10,000-partition model holds millions).
  return reviveValue(JSON.parse(text));
}

function replaceValue(_key: string, value: unknown): unknown {
  switch (typeof value) {
    case "bigint":
      return bigintMarker + value.toString();
    case "string":
      // Without its first marker (else this tag's own value would be tagged again, without end).
      return value.charCodeAt(0) === bigintMarkerCode ? ({ $t: "str", v: value.slice(1) } satisfies Tagged) : value;
    case "number":
      return Number.isFinite(value) ? value : ({ $t: "num", v: String(value) } satisfies Tagged);
    case "object":
      if (value === null || Array.isArray(value)) return value;
      if (value instanceof Map) return { $t: "map", v: [...value] };
      if (value instanceof Set) return { $t: "set", v: [...value] };
      if (value instanceof BigInt64Array) return { $t: "i64", v: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64") };
      if (value instanceof Uint8Array) return { $t: "u8", v: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64") };
      // A real object with a "$t" key is data, not a tag: its entries go in a tag of their own.
      return Object.hasOwn(value, "$t") ? { $t: "obj", v: Object.entries(value) } : value;
    default:
      return value;
  }
}

/** Rebuilds the encoded values under `value`, innermost first, in place (the parsed tree is ours). */
function reviveValue(value: unknown): unknown {
  if (typeof value === "string") return value.charCodeAt(0) === bigintMarkerCode ? BigInt(value.slice(1)) : value;
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === "object" || typeof item === "string") value[i] = reviveValue(item);
    }
    return value;
  }
  const record = value as Record<string, unknown>;
  if (Object.hasOwn(record, "$t")) return reviveTag(record as Tagged);
  for (const key in record) {
    const item = record[key];
    if (typeof item === "object" || typeof item === "string") record[key] = reviveValue(item);
  }
  return record;
}

function reviveTag(tagged: Tagged): unknown {
  switch (tagged.$t) {
    case "str":
      return bigintMarker + String(reviveValue(tagged.v));
    case "num":
      return Number(tagged.v);
    case "map":
      return new Map(reviveValue(tagged.v) as [unknown, unknown][]);
    case "set":
      return new Set(reviveValue(tagged.v) as unknown[]);
    case "i64": {
      const bytes = Buffer.from(tagged.v, "base64");
      // A copy: the decoded Buffer may be a view into Node's shared pool, not 8-byte aligned.
      return new BigInt64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    }
    case "u8":
      return new Uint8Array(Buffer.from(tagged.v, "base64"));
    case "obj":
      return Object.fromEntries(reviveValue(tagged.v) as [string, unknown][]);
    default:
      throw new Error(`unknown tag "${String((tagged as { $t: unknown }).$t)}" in an encoded read model`);
  }
}
