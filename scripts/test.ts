// `npm test`: typecheck beside lint, unit, store (the Store contract on a throwaway PostgreSQL), integration (real Kafka +
// MM2), the Helm chart (helm CLI), the Next.js build and then e2e (Debian Chromium) and the image (podman) beside it.
// Prints how long each stage took. The chaos soak is a command of its own (`npm run soak`, docs/development.md).
// `npm test -- --only unit,integration` runs a subset; `--integration-shards N` splits the integration files
// over N sandboxes side by side (scripts/integration-shards.ts; 3 by default, 1 runs them all on one sandbox).
import { ensureKafkaJars } from "@/lib/sandbox/jars";
import { getKafkaVersion } from "@/lib/sandbox/kafka-version";
import path from "node:path";
import { gapwatchDir } from "@/lib/sandbox/paths";
import { buildStandaloneIfChanged, runCommand } from "./app-build";
import { parseFlags } from "./args";
import { ensureHelm } from "./helm/helm-cli";
import { ensureChromium } from "./chromium";
import { runIntegrationShards, stopIntegrationShards } from "./integration-shards";
import { ensureMonitoringPackages } from "./monitoring-packages";
import { ensurePostgres } from "./postgres-package";
import { startStack, type Stack } from "./stack";

const bin = (name: string) => `node_modules/.bin/${name}`;
const say = (line: string) => process.stdout.write(`${line}\n`);
let stack: Stack | null = null;
/**
 * Integration shards (`--integration-shards N`), each on a sandbox of its own: two took the stage from 1,257 s to
 * 845 s (2026-12-02); three since the files grew to ~2,400 s of measured time (2026-12-06: two shards took 1,450 s on
 * a machine still loaded by other work). Their two CI failures (faults/detection right after flow-model's broker
 * restart; a dedicated MM2 that copied nothing for 27 s) are handled by files that leave their sandbox replicating
 * (waitUntilReplicating in tests/integration/support/runtime.ts) and dedicated-mode's 35 s stall threshold.
 */
const defaultIntegrationShards = 3;
let integrationShards = defaultIntegrationShards;

interface Stage {
  name: string;
  /** Runs at the same time as this stage when both are selected (else in its place in the order). */
  alongside?: string;
  /** Stages (when selected and started alongside the same one) this one waits for before it starts. */
  after?: string[];
  run: (selected: readonly string[]) => Promise<unknown>;
}

const stages: Stage[] = [
  // Each uses one core: side by side they took 34–38 s instead of 44–46 s (measured, incremental tsc).
  { name: "typecheck", alongside: "lint", run: () => runCommand(bin("tsc"), ["--noEmit"]) },
  { name: "lint", run: () => runCommand(bin("eslint"), [".", "--max-warnings", "0"]) },
  {
    // The Store contract against a real, throwaway PostgreSQL (tests/store): its own vitest process, so the unit
    // project's parallel workers never wait on a server; beside the unit stage, as it mostly waits on PostgreSQL
    // (53 s of a 1,470 s npm test when it ran after the unit stage, ci of 2026-12-07).
    name: "store",
    alongside: "unit",
    run: () => {
      ensurePostgres(say);
      return runCommand(bin("vitest"), ["run", "--project", "store"]);
    },
  },
  // Mostly Maven's downloads: beside the unit stage, done before the integration stage needs the jars.
  { name: "kafka-jars", alongside: "unit", run: () => ensureKafkaJars(getKafkaVersion()) },
  { name: "unit", run: () => runCommand(bin("vitest"), ["run", "--project", "unit", "--project", "unit-isolated"]) },
  {
    // The Helm chart through the real helm CLI (lint, template, rendered manifests asserted): a few seconds of CPU
    // beside the integration stage, which mostly waits on Kafka (the first run also builds helm with Go).
    name: "helm",
    alongside: "integration",
    run: () => {
      ensureHelm(say);
      return runCommand(bin("vitest"), ["run", "--project", "helm"]);
    },
  },
  {
    name: "build",
    // CPU-bound for ~80 s, while the integration stage mostly starts JVMs and waits on Kafka; done
    // long before the tests with short timing windows run. e2e, after both, needs it.
    alongside: "integration",
    // With Next.js's standalone output, which the image stage packs; `next start` (e2e) serves the same build.
    // Types: the typecheck stage, which ran before, checked them (next build's own pass is skipped).
    run: (selected) => buildStandaloneIfChanged(say, { typesChecked: selected.includes("typecheck") }),
  },
  {
    name: "e2e",
    // Beside the integration shards once the build is done: one sandbox beside theirs, the stage hidden in the
    // integration stage's time. Its stack uses the default home's sandbox; the shards use homes below it
    // (scripts/integration-shards.ts).
    alongside: "integration",
    after: ["build"],
    run: async () => {
      ensureChromium(say);
      const port = Number(process.env.GAPWATCH_E2E_PORT ?? 3100);
      stack = await startStack({ port, workload: true, pollIntervalSeconds: 3, log: say });
      try {
        await runCommand(bin("playwright"), ["test"], {
          GAPWATCH_E2E_URL: stack.url,
          GAPWATCH_ADMIN_SECRET: stack.adminSecret,
          PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1",
        });
      } finally {
        await stack.stop();
        stack = null;
      }
    },
  },
  {
    name: "image",
    // The OCI image (`npm run image`) run with podman against a sandbox of its own (tests/image), beside the
    // integration shards once e2e has stopped its sandbox: never more than three sandboxes at once.
    alongside: "integration",
    after: ["build", "e2e"],
    run: () => {
      ensurePostgres(say); // roles collector and web share a real PostgreSQL
      return runCommand(bin("vitest"), ["run", "--project", "image"], { GAPWATCH_HOME: path.join(gapwatchDir, "image-stage") });
    },
  },
  {
    name: "integration",
    run: () => {
      ensureMonitoringPackages(say); // tests/integration/receivers: a real Prometheus and Alertmanager
      return runIntegrationShards(integrationShards, say);
    },
  },
];

async function main(): Promise<void> {
  const { flags } = parseFlags(process.argv.slice(2));
  const only = flags.only?.split(",");
  integrationShards = Number(flags["integration-shards"] ?? defaultIntegrationShards);
  const unknown = only?.filter((n) => !stages.some((s) => s.name === n)) ?? [];
  if (unknown.length) throw new Error(`unknown stage(s) ${unknown.join(", ")}; stages: ${stages.map((s) => s.name).join(", ")}`);
  const selected = stages.filter((s) => !only || only.includes(s.name));
  const names = selected.map((s) => s.name);
  const timings: { name: string; seconds: number; ok: boolean; note: string }[] = [];
  const started = Date.now();
  const failures: string[] = [];
  const runTimed = async (stage: Stage, note = "") => {
    const t0 = Date.now();
    try {
      await stage.run(names);
      timings.push({ name: stage.name, seconds: (Date.now() - t0) / 1000, ok: true, note });
    } catch (err) {
      timings.push({ name: stage.name, seconds: (Date.now() - t0) / 1000, ok: false, note });
      failures.push(`${stage.name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  // Stages started alongside a later one, joined when that one ends.
  const beside = new Map<string, { stage: Stage; running: Promise<void> }[]>();
  for (const stage of selected) {
    if (stage.alongside !== undefined && names.includes(stage.alongside)) {
      const companions = beside.get(stage.alongside) ?? [];
      const awaited = companions.filter((c) => stage.after?.includes(c.stage.name));
      const note = `alongside ${stage.alongside}${awaited.length > 0 ? `, after ${awaited.map((c) => c.stage.name).join(" and ")}` : ""}`;
      const running = (async (): Promise<void> => {
        await Promise.all(awaited.map((c) => c.running));
        // Nothing new starts once a stage failed.
        if (failures.length > 0) {
          say(`\n(${stage.name} not started: ${failures.join("; ")})`);
          return;
        }
        say(`\n=== ${stage.name} (${note}) ===`);
        await runTimed(stage, note);
      })();
      beside.set(stage.alongside, [...companions, { stage, running }]);
      continue;
    }
    say(`\n=== ${stage.name} ===`);
    await runTimed(stage);
    for (const companion of beside.get(stage.name) ?? []) {
      say(`\n(waiting for ${companion.stage.name}, running alongside ${stage.name})`);
      await companion.running;
    }
    if (failures.length > 0) break;
  }
  say("\n=== stage times ===");
  for (const t of timings) say(`${t.name.padEnd(12)} ${t.seconds.toFixed(1).padStart(7)} s  ${t.ok ? "ok" : "FAILED"}${t.note ? `  (${t.note})` : ""}`);
  say(`${"total".padEnd(12)} ${((Date.now() - started) / 1000).toFixed(1).padStart(7)} s`);
  if (failures.length > 0) {
    process.stderr.write(`\nnpm test failed in ${failures.join("\n  and in ")}\n`);
    process.exit(1);
  }
}

const interrupt = async () => {
  await Promise.allSettled([(stack as Stack | null)?.stop(), stopIntegrationShards()]);
  process.exit(130);
};
process.on("SIGINT", () => void interrupt());
process.on("SIGTERM", () => void interrupt());
main().catch((err: unknown) => {
  process.stderr.write(`npm test: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
