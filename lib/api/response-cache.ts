import http from "node:http";
import net from "node:net";

/**
 * A micro-cache in front of Next.js for anonymous reads of pages and read-only API routes. Every such answer is a
 * function of the latest read model (one per cycle), the URL and a few request headers, so 50 operators opening the
 * same flow page during an incident need one render per cycle, not 50: a hit is answered from memory before Next.js
 * sees the request (its routing and proxy alone cost ~1.5 ms a request, its page render 10–20 ms at 10,000
 * partitions).
 *
 * An answer is fresh while the read model is the one it was rendered from and it is younger than `maxAgeMs` (ages and
 * stale banners on a page are computed when it renders). Past that, one request renders it again while the others
 * get the previous answer (marked `stale`), as long as that is younger than `maxAgeMs + staleGraceMs`: an operator
 * then sees the page as it was at most one render earlier instead of queueing behind it. With no answer to give,
 * concurrent requests of one key wait for the first one's render instead of rendering it again.
 *
 * At most `maxRenders` renders run at once. A new read model makes every stored page stale together: with 50 clients
 * spread over 200 topic pages, up to 50 renders used to run interleaved on the one event loop, each request waiting for
 * all of them (p99 415 ms at 10,000 partitions on 2 cores, against 10–20 ms for one render). Now, while every slot is
 * busy, a request whose page has a givable answer gets it (`stale`) and the page is put in line to be rendered aside:
 * for no client, from a copy of that request, as soon as a slot frees (after the requests that have no answer to
 * give, which wait for a slot in arrival order). With a slot free, a request renders its page itself, as before.
 *
 * Only 200 answers to GET without credentials are kept: a request carrying a cookie, an Authorization header or the
 * trusted proxy's user header is always rendered for its caller (the signed-in header, the admin's buttons), and an
 * answer that sets a cookie is never kept. Cache-Control in Next's answers speaks to browsers, not to this cache.
 */
export interface ResponseCacheOptions {
  /** How long an answer is fresh, ms; 0 turns the cache off. */
  maxAgeMs: number;
  /** What every answer is computed from (the latest read model); null (no model yet): nothing is kept. */
  currentVersion: () => object | null;
  /** Request headers that mean "a caller with an identity" (cookie, authorization, a proxy's user header). */
  identityHeaders: readonly string[];
  /** How much older than `maxAgeMs` an answer may be given while its new render runs; 10 s unless told. */
  staleGraceMs?: number;
  /** How many renders run at once (see above); 2 unless told: one can wait on I/O while the other computes. */
  maxRenders?: number;
  maxEntries?: number;
  maxBytes?: number;
  now?: () => number;
}

interface CapturedAnswer {
  status: number;
  headers: http.OutgoingHttpHeaders;
  body: Buffer;
}

interface StoredAnswer extends CapturedAnswer {
  storedAt: number;
  /** The read model it was rendered from. */
  version: object;
}

/** Forwards the request to Next.js (the server's own request listeners). */
type Forward = () => void;
/** Hands Next.js a request made by the cache (a page rendered aside), as the server's own listeners get one. */
type ForwardCopy = (request: http.IncomingMessage, response: http.ServerResponse) => void;

/** How long a render aside may take before its slot is given back (its answer, if it ever comes, is not kept). */
const asideTimeoutMs = 30_000;

/** Paths whose answers come from the read model (pages and the read-only API); health, metrics and sign-in are live. */
const cachedPrefixes = [
  "/flows", "/alerts", "/risks", "/connect", "/api/flows", "/api/clusters", "/api/connect", "/api/alerts", "/api/risks",
];
/** Request headers an App Router answer varies on besides the URL (RSC navigations and prefetches). */
const variantHeaders = ["rsc", "next-router-state-tree", "next-router-prefetch", "next-router-segment-prefetch", "next-url"];
/** Headers of a stored answer that describe its transfer, not its content: replayed with a content-length. */
const transferHeaders = new Set(["transfer-encoding", "connection", "keep-alive", "date", "content-length"]);
/** `hit` (fresh), `stale` (the previous answer while another request renders it again), `miss` (rendered). */
export const cacheStatusHeader = "x-gapwatch-cache";

export class ResponseCache {
  private readonly entries = new Map<string, StoredAnswer>();
  /** Keys being rendered, with the requests waiting for them (those that had no answer to be given meanwhile). */
  private readonly rendering = new Map<string, Array<() => void>>();
  /** Requests with no answer to give, waiting for a render slot (retried in order as slots free). */
  private readonly queued: Array<() => void> = [];
  /** Pages to render aside once a slot frees, by key, oldest first: each starts its render (or skips a fresh page). */
  private readonly aside = new Map<string, () => void>();
  private rendersRunning = 0;
  private bytes = 0;
  private readonly staleGraceMs: number;
  private readonly maxRenders: number;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly now: () => number;

  constructor(private readonly options: ResponseCacheOptions) {
    this.staleGraceMs = options.staleGraceMs ?? 10_000;
    this.maxRenders = options.maxRenders ?? 2;
    this.maxEntries = options.maxEntries ?? 512;
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.now = options.now ?? Date.now;
  }

  /**
   * Answers `request` from the cache, or forwards it (capturing a cacheable answer); never answers twice. With
   * `forwardCopy`, a page given stale while the renderer is busy is rendered aside once a slot frees.
   */
  handle(request: http.IncomingMessage, response: http.ServerResponse, forward: Forward, forwardCopy?: ForwardCopy): void {
    const version = this.options.currentVersion();
    const key = version === null ? null : this.keyOf(request);
    if (key === null || version === null) return forward();
    const stored = this.entries.get(key);
    const age = stored === undefined ? Number.POSITIVE_INFINITY : this.now() - stored.storedAt;
    const fresh = stored !== undefined && stored.version === version && age < this.options.maxAgeMs;
    if (fresh) return replay(response, stored, "hit");
    const givable = stored !== undefined && age < this.options.maxAgeMs + this.staleGraceMs ? stored : null;
    const waiting = this.rendering.get(key);
    if (waiting !== undefined) {
      if (givable !== null) return replay(response, givable, "stale");
      waiting.push(() => this.answerWaiter(key, response, forward));
      return;
    }
    if (this.rendersRunning >= this.maxRenders) {
      if (givable !== null) {
        if (forwardCopy !== undefined && !this.aside.has(key)) {
          this.aside.set(key, this.prepareAside(key, request, forwardCopy));
        }
        return replay(response, givable, "stale");
      }
      this.queued.push(() => {
        // A client that went away while it waited needs no render.
        if (!request.socket.destroyed) this.handle(request, response, forward, forwardCopy);
      });
      return;
    }
    this.rendering.set(key, []);
    this.rendersRunning++;
    response.setHeader(cacheStatusHeader, "miss");
    captureAnswer(response, (answer) => this.settle(key, version, answer));
    forward();
  }

  /** The start of a render aside of `key`, from a copy of `request` taken now; skipped if the page is fresh by then. */
  private prepareAside(key: string, request: http.IncomingMessage, forwardCopy: ForwardCopy): () => void {
    const copy = copyRequest(request);
    return () => {
      const version = this.options.currentVersion();
      const stored = this.entries.get(key);
      if (version === null || this.rendering.has(key)) return;
      if (stored !== undefined && stored.version === version && this.now() - stored.storedAt < this.options.maxAgeMs) return;
      this.rendering.set(key, []);
      this.rendersRunning++;
      const response = new http.ServerResponse(copy);
      const timer = setTimeout(() => response.emit("close"), asideTimeoutMs);
      captureAnswer(response, (answer) => {
        clearTimeout(timer);
        this.settle(key, version, answer);
      }, { aside: true });
      forwardCopy(copy, response);
    };
  }

  /** The cache key of a cacheable request, or null when it must reach Next.js. */
  private keyOf(request: http.IncomingMessage): string | null {
    if (this.options.maxAgeMs <= 0 || request.method !== "GET" || request.url === undefined) return null;
    const path = request.url.split("?", 1)[0]!;
    if (path !== "/" && !cachedPrefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) return null;
    const headers = request.headers;
    if (this.options.identityHeaders.some((name) => headers[name] !== undefined)) return null;
    const gzip = /\bgzip\b/.test(String(headers["accept-encoding"] ?? "")) ? "gzip" : "";
    const variant = variantHeaders.map((name) => String(headers[name] ?? "")).join("\u0001");
    return [headers.host ?? "", request.url, gzip, variant].join("\u0000");
  }

  private settle(key: string, version: object, answer: CapturedAnswer | null): void {
    if (answer !== null) this.remember(key, { ...answer, version, storedAt: this.now() });
    const waiters = this.rendering.get(key) ?? [];
    this.rendering.delete(key);
    this.rendersRunning--;
    for (const wake of waiters) wake();
    // Queued requests retry in order until one takes the free slot (the others find an answer or wait again); with
    // none waiting, the oldest page in line is rendered aside.
    if (this.queued.length === 0) this.startAside();
    const queued = this.queued.splice(0);
    for (const retry of queued) retry();
  }

  /** Starts the oldest renders aside while slots are free. */
  private startAside(): void {
    for (const [key, start] of this.aside) {
      if (this.rendersRunning >= this.maxRenders) return;
      this.aside.delete(key);
      start();
    }
  }

  /** A request that waited for a render: its answer, or (not cacheable, or the client of the render went away) Next. */
  private answerWaiter(key: string, response: http.ServerResponse, forward: Forward): void {
    const stored = this.entries.get(key);
    if (stored !== undefined && this.now() - stored.storedAt < this.options.maxAgeMs) return replay(response, stored, "hit");
    forward();
  }

  private remember(key: string, answer: StoredAnswer): void {
    const previous = this.entries.get(key);
    if (previous !== undefined) this.forget(key, previous);
    if (answer.body.length > this.maxBytes / 4) return;
    for (const [oldest, held] of this.entries) {
      if (this.entries.size < this.maxEntries && this.bytes + answer.body.length <= this.maxBytes) break;
      this.forget(oldest, held);
    }
    this.entries.set(key, answer);
    this.bytes += answer.body.length;
  }

  private forget(key: string, stored: StoredAnswer): void {
    this.entries.delete(key);
    this.bytes -= stored.body.length;
  }
}

/** Writes a stored answer with its own length (the original may have been chunked). */
function replay(response: http.ServerResponse, stored: StoredAnswer, status: "hit" | "stale"): void {
  const length = stored.body.length;
  const headers: http.OutgoingHttpHeaders = { ...stored.headers, [cacheStatusHeader]: status, "content-length": length };
  response.writeHead(stored.status, headers);
  response.end(stored.body);
}

/**
 * Collects what Next.js writes to `response` (after its compression, which wraps write/end later than this does) and
 * calls `done` once: with the answer when it is a complete 200 without Set-Cookie, else with null (an error, a
 * redirect, a client that went away mid-answer). A response rendered `aside` has no client: nothing is passed on to
 * a socket, and the answer is complete when Next.js ends it.
 */
function captureAnswer(
  response: http.ServerResponse,
  done: (answer: CapturedAnswer | null) => void,
  options: { aside?: boolean } = {},
): void {
  const chunks: Buffer[] = [];
  let explicit: http.OutgoingHttpHeaders = {};
  let settled = false;
  const settle = (answer: CapturedAnswer | null) => {
    if (settled) return;
    settled = true;
    done(answer);
  };
  const finish = () => {
    const headers = { ...lowerCaseKeys(response.getHeaders()), ...explicit };
    const cacheable = response.statusCode === 200 && headers["set-cookie"] === undefined;
    settle(cacheable ? { status: 200, headers: withoutTransferHeaders(headers), body: Buffer.concat(chunks) } : null);
  };
  const writeHead = response.writeHead;
  const write = response.write;
  const end = response.end;
  response.writeHead = function captureHead(this: http.ServerResponse, ...args: unknown[]) {
    const headers = args.find((arg) => typeof arg === "object" && arg !== null && !Array.isArray(arg));
    if (headers) explicit = lowerCaseKeys(headers as http.OutgoingHttpHeaders);
    return Reflect.apply(writeHead, this, args) as http.ServerResponse;
  } as typeof response.writeHead;
  response.write = function captureWrite(this: http.ServerResponse, ...args: unknown[]) {
    collectChunk(chunks, args[0], args[1]);
    if (!options.aside) return Reflect.apply(write, this, args) as boolean;
    callBack(args);
    return true;
  } as typeof response.write;
  response.end = function captureEnd(this: http.ServerResponse, ...args: unknown[]) {
    if (typeof args[0] !== "function") collectChunk(chunks, args[0], args[1]);
    if (!options.aside) return Reflect.apply(end, this, args) as http.ServerResponse;
    // Marks it ended (headers written, writableEnded); with no socket, nothing is sent anywhere.
    Reflect.apply(end, this, []);
    callBack(args);
    finish();
    // Next's listeners of a closed response (abort signals, timers) run as they do after a client's answer.
    setImmediate(() => response.emit("close"));
    return this;
  } as typeof response.end;
  response.once("finish", finish);
  response.once("close", () => settle(null));
}

/** Calls a write's or end's callback, as a socket would once the data is flushed. */
function callBack(args: readonly unknown[]): void {
  const callback = args.find((arg) => typeof arg === "function") as (() => void) | undefined;
  if (callback !== undefined) process.nextTick(callback);
}

/** A copy of a request (method, URL, headers; GETs carry no body) on a socket that never connects. */
function copyRequest(request: http.IncomingMessage): http.IncomingMessage {
  const copy = new http.IncomingMessage(new net.Socket());
  copy.method = request.method;
  copy.url = request.url;
  copy.httpVersion = request.httpVersion;
  copy.httpVersionMajor = request.httpVersionMajor;
  copy.httpVersionMinor = request.httpVersionMinor;
  copy.headers = { ...request.headers };
  copy.rawHeaders = [...request.rawHeaders];
  copy.push(null);
  copy.complete = true;
  return copy;
}

function collectChunk(chunks: Buffer[], chunk: unknown, encoding: unknown): void {
  if (chunk === undefined || chunk === null || typeof chunk === "function") return;
  const textEncoding = typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8";
  if (typeof chunk === "string") chunks.push(Buffer.from(chunk, textEncoding));
  // Copied: a writer may reuse its buffer once write() returns.
  else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
}

function lowerCaseKeys(headers: http.OutgoingHttpHeaders): http.OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

function withoutTransferHeaders(headers: http.OutgoingHttpHeaders): http.OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !transferHeaders.has(name)));
}
