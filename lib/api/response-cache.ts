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
 * Pages with one shell per route (the topic page: shells below): every URL of the route is answered from one render
 * of the route's shell, filled in with the URL's value, and the shell's data requests are answered from the read model
 * without Next.js; a first request for a topic therefore waits for no render of its own (the 200-topic load).
 *
 * Only 200 answers to GET without credentials are kept: a request carrying a cookie, an Authorization header or the
 * trusted proxy's user header is always rendered for its caller (the signed-in header, the admin's buttons), and an
 * answer that sets a cookie is never kept. Cache-Control in Next's answers speaks to browsers, not to this cache.
 */
export interface ResponseCacheOptions<V extends object = object> {
  /** How long an answer is fresh, ms; 0 turns the cache off. */
  maxAgeMs: number;
  /** What every answer is computed from (the latest read model); null (no model yet): nothing is kept. */
  currentVersion: () => V | null;
  /** Request headers that mean "a caller with an identity" (cookie, authorization, a proxy's user header). */
  identityHeaders: readonly string[];
  /** How much older than `maxAgeMs` an answer may be given while its new render runs; 10 s unless told. */
  staleGraceMs?: number;
  /** How many renders run at once (see above); 2 unless told: one can wait on I/O while the other computes. */
  maxRenders?: number;
  maxEntries?: number;
  maxBytes?: number;
  now?: () => number;
  /** Pages served from one shell render per route, and their data requests (topic-shell-routes.ts). */
  shells?: ShellRoutes<V>;
}

/**
 * Routes whose pages are one shell each, filled in per URL, and whose data requests the cache answers itself. A data
 * request is answered only after Next.js answered this host's anonymous request for the route's shell (its `permit`)
 * within `maxAgeMs + staleGraceMs`: the proxy's checks (allowed host, role, sign-in for reads) passed for such a
 * request, and they do not depend on which topic is asked.
 */
export interface ShellRoutes<V extends object> {
  /**
   * For a page URL of a shell route: the URL of the route's shell render, the value to fill in, and its permit; null
   * for any other URL, or when `version` has nothing for this value (Next.js answers it: its 404).
   */
  matchShell(url: string, version: V): { shellUrl: string; value: string; permit: string } | null;
  /** The page of `value` made from the shell's answer, or null when it cannot be (Next.js renders the page). */
  fillShell(shell: CapturedAnswer, value: string): CapturedAnswer | null;
  /** For a data URL: its permit and its answer from `version` (null: Next.js answers it, e.g. its 404). */
  matchData(url: string, version: V, gzip: boolean): { permit: string; answer: () => CapturedAnswer | null } | null;
}

export interface CapturedAnswer {
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
/**
 * `hit` (fresh), `stale` (the previous answer while another request renders it again), `miss` (rendered); `shell` (a
 * page filled in from its route's shell) and `data` (a shell's data, made from the read model), fresh or stale as the
 * shell they come from.
 */
export const cacheStatusHeader = "x-gapwatch-cache";

type CacheStatus = "hit" | "stale" | "shell" | "data";

export class ResponseCache<V extends object = object> {
  private readonly entries = new Map<string, StoredAnswer>();
  /** Keys being rendered, with the requests waiting for them (those that had no answer to be given meanwhile). */
  private readonly rendering = new Map<string, Array<() => void>>();
  /** Requests with no answer to give, waiting for a render slot (retried in order as slots free). */
  private readonly queued: Array<() => void> = [];
  /** Pages to render aside once a slot frees, by key, oldest first: each starts its render (or skips a fresh page). */
  private readonly aside = new Map<string, () => void>();
  /** Shell permits (ShellRoutes), by host and permit: when Next.js last answered the permit's shell. */
  private readonly permits = new Map<string, number>();
  private rendersRunning = 0;
  private bytes = 0;
  private readonly staleGraceMs: number;
  private readonly maxRenders: number;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly now: () => number;

  constructor(private readonly options: ResponseCacheOptions<V>) {
    this.staleGraceMs = options.staleGraceMs ?? 10_000;
    this.maxRenders = options.maxRenders ?? 2;
    this.maxEntries = options.maxEntries ?? 2048;
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.now = options.now ?? Date.now;
  }

  /**
   * Answers `request` from the cache, or forwards it (capturing a cacheable answer); never answers twice. With
   * `forwardCopy`, a page given stale while the renderer is busy is rendered aside once a slot frees.
   */
  handle(request: http.IncomingMessage, response: http.ServerResponse, forward: Forward, forwardCopy?: ForwardCopy): void {
    const version = this.options.currentVersion();
    const key = version === null ? null : this.keyOf(request, request.url);
    if (key === null || version === null) return forward();
    const stored = this.entries.get(key.text);
    const age = stored === undefined ? Number.POSITIVE_INFINITY : this.now() - stored.storedAt;
    const fresh = stored !== undefined && stored.version === version && age < this.options.maxAgeMs;
    if (fresh) return replay(response, stored, "hit");
    if (this.options.shells !== undefined && isPlainRequest(request)) {
      const url = request.url!;
      const data = this.options.shells.matchData(url, version, key.gzip);
      if (data !== null && this.holdsPermit(request, data.permit)) {
        return this.answerData(key.text, version, data.answer, response, forward);
      }
      const shell = this.options.shells.matchShell(url, version);
      if (shell !== null && forwardCopy !== undefined) {
        return this.answerFromShell({ request, response, key: key.text, version, ...shell }, forward, forwardCopy);
      }
    }
    const givable = stored !== undefined && age < this.options.maxAgeMs + this.staleGraceMs ? stored : null;
    const waiting = this.rendering.get(key.text);
    if (waiting !== undefined) {
      if (givable !== null) return replay(response, givable, "stale");
      waiting.push(() => this.answerWaiter(key.text, response, forward));
      return;
    }
    if (this.rendersRunning >= this.maxRenders) {
      if (givable !== null) {
        if (forwardCopy !== undefined && !this.aside.has(key.text)) {
          this.aside.set(key.text, this.prepareAside(key.text, copyRequest(request), forwardCopy));
        }
        return replay(response, givable, "stale");
      }
      this.queued.push(() => {
        // A client that went away while it waited needs no render.
        if (!request.socket.destroyed) this.handle(request, response, forward, forwardCopy);
      });
      return;
    }
    this.rendering.set(key.text, []);
    this.rendersRunning++;
    response.setHeader(cacheStatusHeader, "miss");
    captureAnswer(response, (answer) => this.settle(key.text, version, answer));
    forward();
  }

  /**
   * Answers a page of a shell route from its route's shell (rendered for no client from a copy of this request with
   * the shell's URL), as handle() answers a page from its own render: fresh, stale while the shell renders again
   * (slots busy), waiting for the shell's render, or queued for a slot. The filled page is kept under its own key.
   */
  private answerFromShell(ask: ShellAsk<V>, forward: Forward, forwardCopy: ForwardCopy): void {
    const { request, response, version } = ask;
    const shellKey = this.keyOf(request, ask.shellUrl)!.text;
    const stored = this.entries.get(shellKey);
    const age = stored === undefined ? Number.POSITIVE_INFINITY : this.now() - stored.storedAt;
    if (stored !== undefined && stored.version === version && age < this.options.maxAgeMs) {
      return this.fillFrom(ask, stored, "shell", forward);
    }
    const givable = stored !== undefined && age < this.options.maxAgeMs + this.staleGraceMs ? stored : null;
    const waiting = this.rendering.get(shellKey);
    const busy = this.rendersRunning >= this.maxRenders;
    if (givable !== null && (waiting !== undefined || busy)) {
      if (waiting === undefined && !this.aside.has(shellKey)) {
        this.aside.set(shellKey, this.prepareAside(shellKey, copyRequest(request, ask.shellUrl), forwardCopy));
      }
      return this.fillFrom(ask, givable, "stale", forward);
    }
    const afterRender = () => {
      const shell = this.entries.get(shellKey);
      const fresh = shell !== undefined && this.now() - shell.storedAt < this.options.maxAgeMs;
      if (fresh) this.fillFrom(ask, shell, "shell", forward);
      else forward();
    };
    if (waiting !== undefined) return void waiting.push(afterRender);
    if (busy) {
      this.queued.push(() => {
        if (!request.socket.destroyed) this.handle(request, response, forward, forwardCopy);
      });
      return;
    }
    this.prepareAside(shellKey, copyRequest(request, ask.shellUrl), forwardCopy)();
    const started = this.rendering.get(shellKey);
    if (started === undefined) return afterRender();
    started.push(afterRender);
  }

  /** Replays the page of `ask` filled in from `shell` (kept under its own key), or forwards it when it cannot be. */
  private fillFrom(ask: ShellAsk<V>, shell: StoredAnswer, status: CacheStatus, forward: Forward): void {
    this.permits.set(`${ask.request.headers.host ?? ""}\u0000${ask.permit}`, shell.storedAt);
    const filled = this.options.shells!.fillShell(shell, ask.value);
    if (filled === null) return forward();
    const answer: StoredAnswer = { ...filled, version: shell.version, storedAt: shell.storedAt };
    this.remember(ask.key, answer);
    replay(ask.response, answer, status);
  }

  /** Whether Next.js answered this host's anonymous request for `permit`'s shell recently enough (ShellRoutes). */
  private holdsPermit(request: http.IncomingMessage, permit: string): boolean {
    const at = this.permits.get(`${request.headers.host ?? ""}\u0000${permit}`);
    return at !== undefined && this.now() - at < this.options.maxAgeMs + this.staleGraceMs;
  }

  /** A shell's data request, answered from the read model and kept under its key until the next model. */
  private answerData(
    key: string,
    version: V,
    answer: () => CapturedAnswer | null,
    response: http.ServerResponse,
    forward: Forward,
  ): void {
    const made = answer();
    if (made === null) return forward();
    const stored: StoredAnswer = { ...made, version, storedAt: this.now() };
    this.remember(key, stored);
    replay(response, stored, "data");
  }

  /** The start of a render aside of `key`, from a copy of `request` taken now; skipped if the page is fresh by then. */
  private prepareAside(key: string, copy: http.IncomingMessage, forwardCopy: ForwardCopy): () => void {
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

  /** The cache key of a cacheable request (for `url`: its own or its shell's), or null when it must reach Next.js. */
  private keyOf(request: http.IncomingMessage, url: string | undefined): { text: string; gzip: boolean } | null {
    if (this.options.maxAgeMs <= 0 || request.method !== "GET" || url === undefined) return null;
    const path = url.split("?", 1)[0]!;
    if (path !== "/" && !cachedPrefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) return null;
    const headers = request.headers;
    if (this.options.identityHeaders.some((name) => headers[name] !== undefined)) return null;
    const gzip = /\bgzip\b/.test(String(headers["accept-encoding"] ?? ""));
    const variant = variantHeaders.map((name) => String(headers[name] ?? "")).join("\u0001");
    return { text: [headers.host ?? "", url, gzip ? "gzip" : "", variant].join("\u0000"), gzip };
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

/** What answerFromShell needs of a request for a page of a shell route. */
interface ShellAsk<V extends object> {
  request: http.IncomingMessage;
  response: http.ServerResponse;
  key: string;
  version: V;
  shellUrl: string;
  value: string;
  permit: string;
}

/** A document request (not an RSC navigation or prefetch: those carry the router's state and go by their URL). */
function isPlainRequest(request: http.IncomingMessage): boolean {
  return variantHeaders.every((name) => request.headers[name] === undefined);
}

/** Writes a stored answer with its own length (the original may have been chunked). */
function replay(response: http.ServerResponse, stored: StoredAnswer, status: CacheStatus): void {
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

/** A copy of a request (method, URL or `url`, headers; GETs carry no body) on a socket that never connects. */
function copyRequest(request: http.IncomingMessage, url = request.url): http.IncomingMessage {
  const copy = new http.IncomingMessage(new net.Socket());
  copy.method = request.method;
  copy.url = url;
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
