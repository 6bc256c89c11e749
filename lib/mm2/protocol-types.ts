/**
 * Kafka protocol primitive types as MM2 uses them for its internal records
 * (clients/src/main/java/org/apache/kafka/common/protocol/types/Type.java):
 * INT16/INT32/INT64 big-endian two's complement; STRING = INT16 byte length + UTF-8 bytes, where a
 * negative length is an error (STRING is never null; NULLABLE_STRING is a different type).
 *
 * The reader bounds-checks every read itself so that bad input surfaces as MalformedRecordError with
 * a precise reason, never as Node's RangeError.
 */
import { MalformedRecordError } from "./errors";

const MAX_STRING_BYTES = 0x7fff;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Sequential big-endian reader over one key or value; `what` names the record part in errors. */
export class ProtocolReader {
  private position = 0;

  constructor(
    private readonly buffer: Buffer,
    private readonly what: string,
  ) {}

  /** Reads an INT16. */
  readInt16(field: string): number {
    this.require(2, field);
    const value = this.buffer.readInt16BE(this.position);
    this.position += 2;
    return value;
  }

  /** Reads an INT32. */
  readInt32(field: string): number {
    this.require(4, field);
    const value = this.buffer.readInt32BE(this.position);
    this.position += 4;
    return value;
  }

  /** Reads an INT64 exactly, as a bigint. */
  readInt64(field: string): bigint {
    this.require(8, field);
    const value = this.buffer.readBigInt64BE(this.position);
    this.position += 8;
    return value;
  }

  /** Reads a STRING; rejects negative lengths and invalid UTF-8 (Java would substitute U+FFFD). */
  readString(field: string): string {
    const length = this.readInt16(`${field} length`);
    if (length < 0) {
      throw new MalformedRecordError(`${this.what} ${field} has negative length ${length}`);
    }
    this.require(length, field);
    const bytes = this.buffer.subarray(this.position, this.position + length);
    this.position += length;
    try {
      return utf8.decode(bytes);
    } catch {
      throw new MalformedRecordError(`${this.what} ${field} is not valid UTF-8`);
    }
  }

  /** Throws unless every byte was consumed: trailing bytes mean a layout we do not understand. */
  expectEnd(): void {
    const left = this.buffer.length - this.position;
    if (left !== 0) {
      throw new MalformedRecordError(`${this.what} has ${left} trailing byte(s) after ${this.position}`);
    }
  }

  private require(bytes: number, field: string): void {
    const left = this.buffer.length - this.position;
    if (left < bytes) {
      throw new MalformedRecordError(
        `${this.what} truncated reading ${field}: needs ${bytes} byte(s) at offset ${this.position}, ${left} left`,
      );
    }
  }
}

/** Encodes an INT16. */
export function encodeInt16(value: number): Buffer {
  const out = Buffer.alloc(2);
  out.writeInt16BE(value);
  return out;
}

/** Encodes an INT32. */
export function encodeInt32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeInt32BE(value);
  return out;
}

/** Encodes an INT64; throws RangeError outside the int64 range (a programming error, not input). */
export function encodeInt64(value: bigint): Buffer {
  if (value < INT64_MIN || value > INT64_MAX) {
    throw new RangeError(`${value} is outside the int64 range`);
  }
  const out = Buffer.alloc(8);
  out.writeBigInt64BE(value);
  return out;
}

/** Encodes a STRING; like Java's Type.STRING it refuses strings longer than 32767 UTF-8 bytes. */
export function encodeString(value: string): Buffer {
  const bytes = Buffer.from(value, "utf8");
  if (bytes.length > MAX_STRING_BYTES) {
    throw new RangeError(`String of ${bytes.length} bytes exceeds the protocol maximum of ${MAX_STRING_BYTES}`);
  }
  return Buffer.concat([encodeInt16(bytes.length), bytes]);
}

/** True when `value` fits a signed 64-bit integer. */
export function isInt64(value: bigint): boolean {
  return value >= INT64_MIN && value <= INT64_MAX;
}
