import { type API, apiVersionsV3, type Broker, type Connection, type ConnectionPool, TimeoutError } from "@platformatic/kafka";
import { getLogger } from "@/lib/logger";
import { type BrokerApiRange, chooseVersion, type SupportedApiName, supportedApis } from "./api-versions";
import { describeKafkaError, isTimeout, KafkaRequestError, toClusterError, toUnreachableError } from "./errors";
import type { ResolvedConnection } from "./options";
import type { BrokerMetadata } from "./types";

const log = getLogger("kafka");

/** Software name/version sent in ApiVersions (KIP-511); Kafka allows [a-zA-Z0-9.-] only. */
const softwareName = "gapwatch";
const softwareVersion = "0.1.0";

type Supported<N extends SupportedApiName> = (typeof supportedApis)[N][number];

/**
 * Rejects with a TimeoutError when `promise` has not settled within `ms`. A backstop behind
 * platformatic's own connect/request timers, whose request timer only starts once a request leaves
 * the connection's in-flight queue.
 */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what} timed out.`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** The response platformatic attaches to a ResponseError (a response with error codes in it). */
export function partialResponseOf(err: unknown): unknown {
  if (typeof err !== "object" || err === null) return undefined;
  const { code, response } = err as { code?: unknown; response?: unknown };
  return code === "PLT_KFK_RESPONSE" && typeof response === "object" && response !== null ? response : undefined;
}

/**
 * Low-level request plumbing shared by every read: which connection to use, which protocol
 * version to speak, and sending with timeouts. Responses that carry Kafka error codes are
 * returned as they are (platformatic throws them with the response attached), so each reader
 * can keep the parts that succeeded.
 */
export class BrokerIo {
  readonly conn: ResolvedConnection;
  /** Broker addresses from the newest Metadata, by node id. */
  readonly brokers = new Map<number, BrokerMetadata>();
  readonly #adminPool: ConnectionPool;
  #versions: Promise<Map<string, BrokerApiRange>> | null = null;

  constructor(conn: ResolvedConnection, adminPool: ConnectionPool) {
    this.conn = conn;
    this.#adminPool = guardPool(adminPool, conn.alias);
  }

  /** Replaces the known broker addresses (after a Metadata response). */
  setBrokers(brokers: readonly BrokerMetadata[]): void {
    this.brokers.clear();
    for (const b of brokers) this.brokers.set(b.nodeId, b);
  }

  /**
   * A connection to any broker: an open one if there is one, otherwise the first of the bootstrap
   * and known addresses to connect (tried in parallel, so a dead address costs no extra time).
   * Throws KafkaUnreachableError when none answers.
   */
  async connectAny(pool: ConnectionPool = this.#adminPool): Promise<Connection> {
    const candidates = uniqueAddresses([...this.conn.brokers, ...this.brokers.values()]);
    for (const b of candidates) {
      const open = pool.getEstablishedConnection(b);
      if (open?.isConnected()) return open;
    }
    try {
      return await withDeadline(Promise.any(candidates.map((b) => pool.get(b))), this.conn.requestTimeoutMs + 1000, "Connecting");
    } catch (err) {
      throw toUnreachableError(this.conn, err);
    }
  }

  /** A connection to one address (errors are platformatic's, for per-broker handling). */
  connectTo(address: Broker, pool: ConnectionPool = this.#adminPool): Promise<Connection> {
    return withDeadline(pool.get(address), this.conn.requestTimeoutMs + 1000, `Connecting to ${address.host}:${address.port}`);
  }

  /** A connection to a broker by node id, from the known addresses. */
  connectToNode(nodeId: number, pool: ConnectionPool = this.#adminPool): Promise<Connection> {
    const broker = this.brokers.get(nodeId);
    if (!broker) return Promise.reject(new Error(`broker ${nodeId} is not in the cluster metadata`));
    return this.connectTo(broker, pool);
  }

  /** The newest version of `name` both the cluster and Gapwatch speak (ApiVersions once per reader). */
  async chooseApi<N extends SupportedApiName>(name: N): Promise<Supported<N>> {
    const ranges = await this.#apiRanges().catch((err: unknown) => {
      throw toClusterError(this.conn, err, "ApiVersions");
    });
    const candidates: readonly Supported<N>[] = supportedApis[name];
    const chosen = chooseVersion(candidates, ranges.get(name));
    if (!chosen) {
      const range = ranges.get(name);
      const offered = range ? `v${range.minVersion}-v${range.maxVersion}` : "no version";
      const wanted = candidates.map((c) => `v${c.version}`).join(", ");
      throw new KafkaRequestError(this.conn.alias, `cluster ${this.conn.alias}: brokers offer ${name} ${offered}; Gapwatch needs one of ${wanted}`);
    }
    return chosen;
  }

  /**
   * Sends one request and returns the response, also when it carries Kafka error codes. On a
   * timeout the connection is closed: platformatic leaves a late answer to a timed-out request
   * unread in its buffer, which would garble every later response on that connection.
   */
  async send<Req extends unknown[], Res>(connection: Connection, api: API<Req, Res>, args: Req): Promise<Res> {
    try {
      return await withDeadline(api.async(connection, ...args), this.conn.requestTimeoutMs + 2000, "Request");
    } catch (err) {
      const partial = partialResponseOf(err);
      if (partial !== undefined) return partial as Res;
      if (isTimeout(err)) {
        log.warn({ cluster: this.conn.alias, broker: `${connection.host}:${connection.port}` }, "request timed out; closing the connection");
        // Wait (briefly) for the close, so that the pool has dropped the connection before the
        // next call asks it for one; a closing connection would fail that call.
        await withDeadline(connection.close(), 1000, "Closing").catch(() => undefined);
      }
      throw err;
    }
  }

  #apiRanges(): Promise<Map<string, BrokerApiRange>> {
    if (!this.#versions) {
      const loading = (async () => {
        const connection = await this.connectAny();
        const response = await this.send(connection, apiVersionsV3.api, [softwareName, softwareVersion]);
        if (response.errorCode !== 0) throw new KafkaRequestError(this.conn.alias, `cluster ${this.conn.alias}: ApiVersions failed with code ${response.errorCode}`);
        return new Map(response.apiKeys.map((k) => [k.name, k]));
      })();
      this.#versions = loading;
      // A failed negotiation is retried by the next call instead of being cached.
      loading.catch(() => {
        if (this.#versions === loading) this.#versions = null;
      });
    }
    return this.#versions;
  }
}

/**
 * True when every broker of the newest Metadata (`known`; none known counts as all) is among
 * `failed`: only then is the cluster unreachable. A read that went to some brokers only, all of
 * them down while the others answer, fails just their partitions.
 */
export function isEveryBrokerFailed(known: Iterable<number>, failed: ReadonlySet<number>): boolean {
  for (const id of known) if (!failed.has(id)) return false;
  return true;
}

function uniqueAddresses(list: readonly Broker[]): Broker[] {
  const seen = new Map<string, Broker>();
  for (const b of list) seen.set(`${b.host}:${b.port}`, { host: b.host, port: b.port });
  return [...seen.values()];
}

/**
 * platformatic's pool listens to a connection's 'error' event only once; a second 'error' with no
 * listener would be thrown by Node's EventEmitter and crash the process. Log them instead.
 */
export function guardPool(pool: ConnectionPool, alias: string): ConnectionPool {
  pool.on("connecting", ({ connection }) => {
    connection.on("error", (err: Error) => log.debug({ cluster: alias, err: describeKafkaError(err) }, "connection error"));
  });
  return pool;
}
