import type { GapwatchConfig } from "@/lib/config";
import { type ClusterReader, createClusterReader, type FetchRequestItem, type RequestCount } from "@/lib/kafka";
import { getLogger } from "@/lib/logger";
import type { SyncPoint } from "@/lib/mm2";
import { describeError, pollCluster } from "./cluster-poll";
import { pollConnectRest, selectConnectSnapshot } from "./connect-poll";
import { type ConnectTopicsState, createConnectTopicsState, readConnectTopics } from "./connect-topics";
import { buildFlow } from "./flow-builder";
import { readDedicatedConfigs } from "./dedicated-configs";
import { probeHiddenTopics } from "./hidden-topics";
import { addKeptSourceConnector, defineRetainedFlow, discoverFlows } from "./flow-discovery";
import { createFlowTailState, type FlowReadContext, type FlowTailState, readFlow } from "./flow-readings";
import { advanceLeaderMarks, type LeaderMarks, leaderMarksStoreKey, parseLeaderMarks, routineWriteMs, serializeLeaderMarks } from "./leader-marks";
import { hasPartitionIn, readPartitionFields } from "./partition-fields";
import type { CollectorPersistence } from "./persistence";
import type { ShardAssignment } from "./shards";
import { type RecordSampleRead, readRecordSamples } from "./record-samples";
import {
  fingerprintRetainedFlows,
  parseRetainedFlows,
  parseRetireRequests,
  type RetainedFlow,
  retainedFlowsKey,
  retainFlows,
  retiredFlowsKey,
  serializeRetainedFlows,
} from "./retained-flows";
import { advanceTransactionLedgers } from "./transaction-ledger-read";
import { type PartitionLedger, parseLedgers, serializeLedgers } from "./transaction-ledger";
import { LedgerShards, ledgerStoreKey } from "./transaction-ledger-shards";
import type { FlowDefinition } from "./flow-discovery";
import { type ClusterSnapshot, type CollectorHistory, type ConnectClusterSnapshot, ledgerKey, type OffsetSyncPoint, type Snapshot, type TransactionLedgerView } from "./types";
import { checkSyncStepWriters } from "./sync-step-writers";
import { checkTargetDensity, selectFlowDensityIssues } from "./target-density";
import { applySourceTails, fetchSourceTails } from "./unreplicated-tail";

const log = getLogger("collector");

/** Called after every cycle with the new and the previous snapshot (lib/pipeline). */
export type CycleListener = (current: Snapshot, previous: Snapshot | null, history: CollectorHistory) => void | Promise<void>;

/**
 * The poll loop: one cycle reads every cluster and Connect cluster in parallel, finds the MM2
 * flows, reads MM2's own topics, and publishes one immutable Snapshot. Cycles never overlap:
 * the next starts `pollIntervalSeconds` after the previous one ended.
 */
export class Collector {
  private readonly readers = new Map<string, ClusterReader>();
  private readonly tailState: FlowTailState;
  /** Per Connect cluster with `internalTopics`: what its config, status and offsets topics said so far. */
  private readonly connectTopics = new Map<string, ConnectTopicsState>();
  /** Flow partitions whose source log showed a transaction marker since start (`flowPartitionKey`). */
  private readonly markerPartitions = new Set<string>();
  /** Flow partitions whose target is written by others than MM2 alone, with why (`flowPartitionKey`). */
  private readonly untrustedTargets = new Map<string, string>();
  /** Per flow partition, the newest offset-sync downstream offset whose steps checkSyncStepWriters looked at. */
  private readonly syncStepsChecked = new Map<string, bigint>();
  /** Transaction ledgers by `ledgerKey`, persisted every cycle (a restart continues where they were). */
  private readonly ledgers = new Map<string, PartitionLedger>();
  /** With scaleOut: which held shards each ledger is stored under (transaction-ledger-shards.ts). */
  private readonly ledgerShards: LedgerShards | null;
  private ledgerViews: Record<string, TransactionLedgerView> = {};
  /** Last known high watermark and leader epoch per partition, persisted (leader-marks.ts). */
  private leaderMarks: LeaderMarks = new Map();
  /** When the leader marks were last written to the store (0: never), and whether a write is due. */
  private leaderMarksWrittenAt = 0;
  private leaderMarksDue = false;
  /** Flows once found on Connect, kept until retired (retained-flows.ts); persisted on change, else once a minute. */
  private retainedFlows = new Map<string, RetainedFlow>();
  /** The retained flows as last written (fingerprintRetainedFlows), and when. */
  private retainedFingerprint: string | null = null;
  private retainedWrittenAt = 0;
  private latestSnapshot: Snapshot | null = null;
  private cycle = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<Snapshot> | null = null;
  private stopped = true;
  private readonly listeners: CycleListener[] = [];
  /** Whether the store's history was read (restore); true at once without a store. */
  private restored: boolean;
  private readonly pendingWrites: Promise<void>[] = [];

  /**
   * `shards`: with scaleOut (role collector), the flows of the shards this collector holds are the only ones read
   * (every cluster and Connect cluster is still polled: flows are found from them); null reads every flow.
   */
  constructor(
    private readonly config: GapwatchConfig,
    private readonly store: CollectorPersistence | null,
    private readonly shards: ShardAssignment | null = null,
  ) {
    for (const c of config.clusters) {
      this.readers.set(c.alias, createClusterReader({ alias: c.alias, bootstrap: c.bootstrap, tls: c.tls, sasl: c.sasl, clientId: "gapwatch" }));
    }
    this.tailState = createFlowTailState();
    this.ledgerShards = shards === null ? null : new LedgerShards(shards);
    this.restored = store === null;
  }

  /** Starts the loop (first cycle at once). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    log.info({ clusters: this.config.clusters.map((c) => c.alias), intervalSeconds: this.config.pollIntervalSeconds }, "collector started");
    void this.loop();
  }

  /** Stops the loop, waits for a running cycle, closes the Kafka clients. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
    // The marks as they are now: a restart continues from the exact last high watermarks.
    if (this.store && this.restored && this.cycle > 0) await this.writeLeaderMarks(this.store, Date.now());
    await Promise.allSettled([...this.readers.values()].map((r) => r.close()));
    log.info("collector stopped");
  }

  onCycle(listener: CycleListener): void {
    this.listeners.push(listener);
  }

  latest(): Snapshot | null {
    return this.latestSnapshot;
  }

  history(): CollectorHistory {
    return { offsetSyncs: this.tailState.syncHistory };
  }

  /** Kafka requests sent per cluster since the last reset, by API and broker (tests, benchmarks). */
  readRequestCounts(): Record<string, RequestCount[]> {
    return Object.fromEntries([...this.readers].map(([alias, r]) => [alias, r.requestCounts()]));
  }

  resetRequestCounts(): void {
    for (const r of this.readers.values()) r.resetRequestCounts();
  }

  /** The content audit's reads of sampled records on one cluster (record-samples.ts); the pipeline calls it between cycles. */
  readRecordSamples(cluster: string, items: readonly FetchRequestItem[]): Promise<RecordSampleRead> {
    const reader = this.readers.get(cluster);
    if (!reader) return Promise.resolve({ results: new Map(), requests: 0, error: `no cluster "${cluster}" in the config` });
    return readRecordSamples(reader, items);
  }

  /** Runs one cycle now (or joins the one running): used by the loop and by tests. */
  runCycle(): Promise<Snapshot> {
    if (!this.running) {
      this.running = this.collect().finally(() => {
        this.running = null;
      });
    }
    return this.running;
  }

  private async loop(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.runCycle();
    } catch (err) {
      log.error({ err: describeError(err) }, "collector cycle failed");
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.loop(), this.config.pollIntervalSeconds * 1000);
  }

  private async collect(): Promise<Snapshot> {
    if (!this.restored && this.store) await this.restore(this.store);
    this.shards?.beginCycle();
    if (this.ledgerShards && this.store) {
      // A failed read fails the cycle, as restore() does: no held shard's ledgers start over while the store has them.
      const unreadable = await this.ledgerShards.follow(this.ledgers, this.store);
      for (const err of unreadable) log.warn({ err }, "a shard's stored transaction ledgers are unreadable; reading again from the log start");
    }
    const started = Date.now();
    const cycle = ++this.cycle;
    const previous = this.latestSnapshot;
    const refreshConfigs = cycle % this.config.configRefreshCycles === 1 || this.config.configRefreshCycles === 1;
    const [clusters, rest] = await Promise.all([
      Promise.all(this.config.clusters.map((c) => pollCluster(this.readers.get(c.alias)!, c, previous?.clusters.find((p) => p.alias === c.alias) ?? null, { refreshConfigs, now: started, leaderMarks: this.leaderMarks.get(c.alias) }))),
      Promise.all(this.config.connect.map((c) => pollConnectRest(c))),
    ]);
    for (const c of clusters) if (advanceLeaderMarks(this.leaderMarks, c, this.leaderMarksWrittenAt)) this.leaderMarksDue = true;
    const topics = await this.readConnectTopics(clusters, started);
    const connect = this.config.connect.map((c, i) => {
      const before = previous?.connect.find((p) => p.name === c.name) ?? null;
      return selectConnectSnapshot(c, rest[i]!, topics[i]!, before, started);
    });
    // Flows of a Connect cluster read from its topics this cycle take MM2's positions from its offsets topic.
    const topicPositions = new Map(
      connect.flatMap((c, i) => {
        if (c.source !== "internal-topics") return [];
        return [[c.name, { positions: topics[i]?.read?.positions ?? null, error: topics[i]?.error ?? null }] as const];
      }),
    );
    const flows = await this.readFlows(clusters, connect, started, previous, topicPositions);
    // Topics the flows need that Metadata did not list: absent, or hidden by a missing Describe ACL (a blind spot).
    const probed = await probeHiddenTopics(clusters, flows, this.readers);
    const snapshot: Snapshot = Object.freeze({
      cycle,
      takenAt: started,
      durationMs: Date.now() - started,
      clusters: probed,
      connect,
      flows,
      malformedRecords: { ...this.tailState.malformed },
      transactionLedgers: this.ledgerViews,
    });
    this.latestSnapshot = snapshot;
    await this.persist();
    for (const listener of this.listeners) {
      try {
        await listener(snapshot, previous, this.history());
      } catch (err) {
        log.error({ err: describeError(err) }, "cycle listener failed");
      }
    }
    // durationMs is the poll; totalMs adds the store write and the listeners (pipeline, publishing): the whole cycle.
    log.debug({ cycle, durationMs: snapshot.durationMs, totalMs: Date.now() - started, flows: flows.length }, "cycle done");
    return snapshot;
  }

  /**
   * Tails the internal topics of every Connect cluster configured with them, also while its REST API answers: the
   * fallback is then complete the cycle REST fails.
   */
  private readConnectTopics(clusters: readonly ClusterSnapshot[], now: number) {
    const ctx = { readers: this.readers, clusters: new Map(clusters.map((c) => [c.alias, c])), state: this.tailState };
    return Promise.all(
      this.config.connect.map((c) => {
        if (!c.internalTopics) return null;
        const state = this.connectTopics.get(c.name) ?? createConnectTopicsState();
        this.connectTopics.set(c.name, state);
        return readConnectTopics(c, state, ctx, now);
      }),
    );
  }

  private async readFlows(
    clusters: ClusterSnapshot[],
    connect: ConnectClusterSnapshot[],
    now: number,
    previous: Snapshot | null,
    topicPositions: FlowReadContext["connectTopicPositions"],
  ) {
    const byAlias = new Map(clusters.map((c) => [c.alias, c]));
    const dedicated = await readDedicatedConfigs(clusters, { readers: this.readers, clusters: byAlias, state: this.tailState });
    const topicNames = clusters.map((c) => ({ alias: c.alias, topicNames: c.topics.map((t) => t.name) }));
    const live = discoverFlows(connect, topicNames, this.config.flows, dedicated);
    const discovered = (await this.retainFlows(live, connect, now)).sort((a, b) => a.id.localeCompare(b.id));
    const definitions = this.shards === null ? discovered : discovered.filter((def) => this.shards!.owns(def.id));
    const read = await Promise.all(
      definitions.map(async (def) => {
        const readings = await readFlow(def, {
          readers: this.readers,
          clusters: byAlias,
          connect: this.config.connect,
          connectTopicPositions: topicPositions,
          state: this.tailState,
          now,
          onSyncs: (flow, topic, partition, syncs: SyncPoint[]) => this.track(this.store?.appendOffsetSyncs(flow, topic, partition, syncs, now)),
          onCheckpoints: (flow, checkpoints) => this.track(this.store?.appendCheckpoints(flow, checkpoints)),
        });
        const before = previous?.flows.find((f) => f.id === def.id);
        const build = (issues: ReadonlyMap<string, string>) =>
          buildFlow(def, byAlias.get(def.source), byAlias.get(def.target), { ...readings, targetDensityIssues: issues }, now, before && previous ? { flow: before, takenAt: previous.takenAt } : null);
        return { flow: build(selectFlowDensityIssues(def.id, this.untrustedTargets)), build };
      }),
    );
    const built = read.map((r) => r.flow);
    const source = await fetchSourceTails(built, this.readers);
    const density = await checkTargetDensity(built, this.readers, source.tails, this.untrustedTargets);
    const steps = await checkSyncStepWriters(built, this.readers, this.tailState.syncHistory, this.syncStepsChecked, this.untrustedTargets);
    for (const key of steps.found) density.found.add(key);
    for (const e of [...source.errors, ...density.errors, ...steps.errors]) log.warn({ err: e }, "tail of a flow not read");
    // A derived position the target contradicts is rebuilt from Connect's committed position.
    const flows = read.map(({ flow, build }) =>
      hasPartitionIn(flow, density.found) ? build(selectFlowDensityIssues(flow.id, this.untrustedTargets)) : flow,
    );
    // A partition with a ledger showed markers before (perhaps before a restart): it stays transactional.
    if (this.ledgers.size > 0) {
      for (const f of flows) {
        const fields = readPartitionFields(f);
        for (let i = 0; i < fields.count; i++) {
          if (this.ledgers.has(ledgerKey(f.source, fields.topic(i), fields.partition(i)))) this.markerPartitions.add(fields.key(i));
        }
      }
    }
    const refined = applySourceTails(flows, source.tails, this.markerPartitions);
    const ledgers = await advanceTransactionLedgers(this.ledgers, refined, byAlias, this.readers, now);
    this.ledgerShards?.claim(this.ledgers, refined);
    for (const e of ledgers.errors) log.warn({ err: e }, "transaction ledger not read");
    this.ledgerViews = ledgers.views;
    return refined;
  }

  /**
   * Keeps every flow once found on Connect: returns the flows found now (with the source connectors Connect no longer
   * lists kept in them) and the definitions of those Connect no longer lists (not retired).
   * The operators' retire requests are read from the store every cycle (a web server writes them).
   */
  private async retainFlows(live: FlowDefinition[], connect: ConnectClusterSnapshot[], now: number): Promise<FlowDefinition[]> {
    let requests = new Map<string, number>();
    try {
      requests = this.store ? parseRetireRequests(await this.store.getValue(retiredFlowsKey)) : new Map();
    } catch (err) {
      log.warn({ err: describeError(err) }, "retire requests not read; flows stay kept this cycle");
    }
    const byConfig = new Set(Object.entries(this.config.flows).filter(([, o]) => o.retired === true).map(([id]) => id));
    const result = retainFlows(live, connect, this.retainedFlows, { requests, byConfig }, now, (r) => defineRetainedFlow(r, this.config.flows), addKeptSourceConnector);
    // Said once, in the cycle that first finds it missing (the alert carries it from then on).
    for (const def of [...result.live, ...result.definitions].filter((d) => d.connectorMissing?.since === now)) {
      const { connectors, since } = def.connectorMissing!;
      log.warn({ flow: def.id, connectors, since }, "MM2 source connector missing from Connect");
    }
    this.retainedFlows = result.retained;
    return [...result.live, ...result.definitions];
  }

  /** Keeps the transaction ledgers and the leader marks for a restart (the pipeline writes the cycle's samples). */
  private async persist(): Promise<void> {
    await Promise.all(this.pendingWrites.splice(0));
    if (!this.store) return;
    const now = this.latestSnapshot?.takenAt ?? Date.now();
    if (this.leaderMarksDue || now - this.leaderMarksWrittenAt >= routineWriteMs) await this.writeLeaderMarks(this.store, now);
    try {
      if (this.ledgerShards) await this.ledgerShards.save(this.ledgers, this.store);
      else if (this.ledgers.size > 0) await this.store.setValue(ledgerStoreKey, serializeLedgers(this.ledgers));
      await this.writeRetainedFlows(this.store, now);
    } catch (err) {
      log.error({ err: describeError(err) }, "writing the transaction ledgers to the store failed");
    }
  }

  /**
   * Writes the retained flows when they changed (a flow found or lost, a connector missing) and otherwise at most once
   * per `routineWriteMs`: only the time each flow was last found moves every cycle.
   */
  private async writeRetainedFlows(store: CollectorPersistence, now: number): Promise<void> {
    const fingerprint = fingerprintRetainedFlows(this.retainedFlows);
    if (fingerprint === this.retainedFingerprint && now - this.retainedWrittenAt < routineWriteMs) return;
    await store.setValue(retainedFlowsKey, serializeRetainedFlows(this.retainedFlows));
    this.retainedFingerprint = fingerprint;
    this.retainedWrittenAt = now;
  }

  /** Appends a partition's stored syncs to its history; one with an offset beyond 2^53 is left out, and logged. */
  private restoreSyncs(key: string, syncs: readonly OffsetSyncPoint[]): void {
    try {
      this.tailState.syncHistory.append(key, syncs);
    } catch (err) {
      log.warn({ err: describeError(err) }, "stored offset syncs left out: an offset is beyond 2^53");
    }
  }

  /** Writes the leader marks (a failure is logged, and the write is tried again next cycle). */
  private async writeLeaderMarks(store: CollectorPersistence, now: number): Promise<void> {
    try {
      await store.setValue(leaderMarksStoreKey, serializeLeaderMarks(this.leaderMarks));
      this.leaderMarksWrittenAt = now;
      this.leaderMarksDue = false;
    } catch (err) {
      log.error({ err: describeError(err) }, "writing the leader marks to the store failed");
    }
  }

  /** Keeps a sync or checkpoint write of the cycle, awaited before the cycle is published (a failure is logged). */
  private track(write: Promise<void> | undefined): void {
    if (!write) return;
    this.pendingWrites.push(write.catch((err: unknown) => log.error({ err: describeError(err) }, "writing offset syncs or checkpoints to the store failed")));
  }

  /**
   * Reads what the store kept (offset sync history, transaction ledgers, leader marks) before the first cycle. A failure fails
   * the cycle and is retried by the next one: no cycle runs without the history a restart must continue from.
   */
  private async restore(store: CollectorPersistence): Promise<void> {
    // With scaleOut the held shards' ledgers are read at each change of them (LedgerShards.follow).
    const [history, ledgers, marks, retained] = await Promise.all([
      store.loadOffsetSyncHistory(),
      this.ledgerShards ? null : store.getValue(ledgerStoreKey),
      store.getValue(leaderMarksStoreKey),
      store.getValue(retainedFlowsKey),
    ]);
    const storedMarks = parseLeaderMarks(marks);
    if (storedMarks.error !== null) log.warn({ err: storedMarks.error }, "stored leader marks unreadable; starting without them (an unclean election during the downtime goes unseen)");
    this.leaderMarks = storedMarks.marks;
    const kept = parseRetainedFlows(retained);
    if (kept.error !== null) log.warn({ err: kept.error }, "stored retained flows unreadable; flows are kept from now on");
    this.retainedFlows = kept.flows;
    for (const [key, syncs] of history) this.restoreSyncs(key, syncs);
    const stored = parseLedgers(ledgers);
    if (stored.error !== null) log.warn({ err: stored.error }, "stored transaction ledgers unreadable; reading again from the log start");
    for (const l of stored.ledgers) this.ledgers.set(ledgerKey(l.cluster, l.topic, l.partition), l);
    this.restored = true;
  }
}
