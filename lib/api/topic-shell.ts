import type http from "node:http";
import zlib from "node:zlib";
import { plainTopicName, shellTopicPlaceholder } from "@/lib/views/topic-page-data";

/** An answer as the response cache keeps it: status, headers (no transfer headers), body as sent. */
export interface ShellAnswer {
  status: number;
  headers: http.OutgoingHttpHeaders;
  body: Buffer;
}

/** A topic page URL: its flow's path segment (as sent), the topic, and the query (with its "?", or ""). */
export interface TopicPageUrl {
  flowSegment: string;
  topic: string;
  query: string;
}

const topicPagePath = /^\/flows\/([^/?]+)\/topics\/([^/?]+)$/;
const pageDataPath = /^\/api\/flows\/([^/?]+)\/topics\/([^/?]+)\/page-data$/;

/**
 * A topic page URL whose topic can be filled into its flow's shell (a plain Kafka topic name, not the placeholder),
 * or null: any other URL, or a topic name a shell cannot hold (Next.js renders those pages itself).
 */
export function matchTopicPageUrl(url: string): TopicPageUrl | null {
  const queryAt = url.indexOf("?");
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  const match = topicPagePath.exec(path);
  if (match === null) return null;
  const topic = match[2]!;
  if (!plainTopicName.test(topic) || topic === shellTopicPlaceholder) return null;
  return { flowSegment: match[1]!, topic, query: queryAt < 0 ? "" : url.slice(queryAt) };
}

/** The URL of the shell render that serves `page`: the same flow and query, the placeholder for the topic. */
export function formatShellUrl(page: TopicPageUrl): string {
  return `/flows/${page.flowSegment}/topics/${shellTopicPlaceholder}${page.query}`;
}

/** A topic's page-data URL (no query): its flow's path segment and the topic; null for any other URL. */
export function matchPageDataUrl(url: string): { flowSegment: string; topic: string } | null {
  const match = pageDataPath.exec(url);
  if (match === null || !plainTopicName.test(match[2]!)) return null;
  return { flowSegment: match[1]!, topic: match[2]! };
}

/** A shell's answer cut at each placeholder, once per stored answer (its body compressed or not). */
interface ShellParts {
  /** Uncompressed text between the placeholders (one more than there are placeholders). */
  segments: Buffer[];
  /** With a gzip answer: each segment raw-deflated and flushed to a byte boundary, so pieces can be joined. */
  deflated: Buffer[] | null;
  headers: http.OutgoingHttpHeaders;
  status: number;
}

const partsOf = new WeakMap<ShellAnswer, ShellParts | null>();
const placeholderBytes = Buffer.from(shellTopicPlaceholder);

/**
 * The answer Next.js gives for `topic`'s page, made from its flow's shell answer (rendered for the placeholder): the
 * placeholder replaced by the topic's name in the body and the headers. The page's server render depends on the topic
 * only through its name (page.tsx: the data arrive by a separate request), and a plain topic name reads the same in a
 * URL, in HTML and in JavaScript, so the bytes are those of a render for the topic. A gzip body is joined from
 * deflated pieces (each segment compressed once per shell; the name as a stored block) with its CRC-32 recomputed:
 * no compression per topic. Null when the answer cannot be filled (a content encoding other than gzip, or the shell
 * did not name the placeholder).
 */
export function fillTopicShell(shell: ShellAnswer, topic: string): ShellAnswer | null {
  let parts = partsOf.get(shell);
  if (parts === undefined) partsOf.set(shell, (parts = cutShell(shell)));
  if (parts === null) return null;
  const name = Buffer.from(topic);
  const headers = Object.fromEntries(
    Object.entries(parts.headers).map(([header, value]) => [header, replaceInHeader(value, topic)]),
  );
  const pieces: Buffer[] = [];
  parts.segments.forEach((segment, index) => {
    if (index > 0) pieces.push(name);
    pieces.push(segment);
  });
  if (parts.deflated === null) return { status: parts.status, headers, body: Buffer.concat(pieces) };
  return { status: parts.status, headers, body: joinGzip(parts.deflated, storeBlock(name), pieces) };
}

function cutShell(shell: ShellAnswer): ShellParts | null {
  const encoding = String(shell.headers["content-encoding"] ?? "identity").toLowerCase();
  if (encoding !== "identity" && encoding !== "gzip") return null;
  const text = encoding === "gzip" ? zlib.gunzipSync(shell.body) : shell.body;
  const segments: Buffer[] = [];
  let from = 0;
  for (let at = text.indexOf(placeholderBytes); at >= 0; at = text.indexOf(placeholderBytes, from)) {
    segments.push(text.subarray(from, at));
    from = at + placeholderBytes.length;
  }
  segments.push(text.subarray(from));
  if (segments.length === 1) return null;
  const deflated = encoding === "gzip"
    ? segments.map((segment) => zlib.deflateRawSync(segment, { finishFlush: zlib.constants.Z_SYNC_FLUSH }))
    : null;
  return { segments, deflated, headers: shell.headers, status: shell.status };
}

type HeaderValue = http.OutgoingHttpHeader | undefined;

function replaceInHeader(value: HeaderValue, topic: string): HeaderValue {
  if (typeof value === "string") return value.replaceAll(shellTopicPlaceholder, topic);
  if (Array.isArray(value)) return value.map((item) => item.replaceAll(shellTopicPlaceholder, topic));
  return value;
}

/** A non-final stored deflate block holding `data` (< 64 KiB), starting at a byte boundary (RFC 1951 §3.2.4). */
function storeBlock(data: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt16LE(data.length, 1);
  header.writeUInt16LE(~data.length & 0xffff, 3);
  return Buffer.concat([header, data]);
}

/** gzip member header (RFC 1952): no name, no time, OS unknown. */
const gzipHeader = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);
/** A final, empty block of fixed Huffman codes: ends the deflate stream. */
const finalBlock = Buffer.from([0x03, 0x00]);

/** A gzip body: the deflated segments with the stored name between them, then the CRC-32 and size of `plain`. */
function joinGzip(deflated: readonly Buffer[], name: Buffer, plain: readonly Buffer[]): Buffer {
  const pieces: Buffer[] = [gzipHeader];
  deflated.forEach((segment, index) => {
    if (index > 0) pieces.push(name);
    pieces.push(segment);
  });
  let crc = 0;
  let size = 0;
  for (const piece of plain) {
    // Skipped when empty: node's crc32 answered 0 for an empty pooled buffer (Node 20.20).
    if (piece.length === 0) continue;
    crc = zlib.crc32(piece, crc);
    size += piece.length;
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size >>> 0, 4);
  pieces.push(finalBlock, trailer);
  return Buffer.concat(pieces);
}
