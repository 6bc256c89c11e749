import { parseAllDocuments } from "yaml";
import { ensureHelm, renderChart, runHelm, chartDir } from "@/scripts/helm/helm-cli";

/** One rendered Kubernetes object, loosely typed: the tests read the fields they assert. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  stringData?: Record<string, string>;
}

/** A Deployment's container as rendered (only what the tests read). */
export interface Container {
  image: string;
  env: { name: string; value?: string; valueFrom?: Record<string, { name?: string; key?: string; fieldPath?: string }> }[];
  envFrom?: { secretRef: { name: string } }[];
  ports: { name: string; containerPort: number }[];
  livenessProbe: Probe;
  readinessProbe: Probe;
  startupProbe: Probe;
  securityContext: Record<string, unknown>;
  resources: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
}

interface Probe {
  httpGet: { path: string; port: string; httpHeaders?: { name: string; value: string }[] };
}

/** A Deployment's pod spec as rendered (only what the tests read). */
export interface PodSpec {
  securityContext: Record<string, unknown>;
  containers: Container[];
  volumes: ({ name: string } & Record<string, unknown>)[];
  automountServiceAccountToken: boolean;
}

let helm: string | null = null;

/** The helm binary, built on first use (scripts/helm/helm-cli.ts). */
export function getHelm(): string {
  helm ??= ensureHelm((line) => process.stderr.write(`${line}\n`));
  return helm;
}

/** `helm template` of the chart with a values file (or the defaults) and `--set` pairs, parsed into objects. */
export function renderManifests(valuesFile: string | null, sets: readonly string[] = []): Manifest[] {
  const text = renderChart(getHelm(), valuesFile, sets);
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`helm rendered YAML that does not parse: ${doc.errors[0]!.message}`);
      return doc.toJS() as Manifest | null;
    })
    .filter((m): m is Manifest => m !== null);
}

/** What `helm template` says when it refuses the values (its stderr), or null when it renders. */
export function renderError(sets: readonly string[]): string | null {
  const args = ["template", "gapwatch", chartDir, ...sets.flatMap((s) => ["--set", s])];
  const run = runHelm(getHelm(), args);
  return run.status === 0 ? null : run.stderr;
}

/** The one object of `kind` named `name`; fails the test when it is missing. */
export function findManifest(manifests: readonly Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} among ${manifests.map((m) => `${m.kind}/${m.metadata.name}`).join(", ")}`);
  return found;
}

/** A Deployment's pod spec. */
export function podSpecOf(deployment: Manifest): PodSpec {
  return (deployment.spec as { template: { spec: PodSpec } }).template.spec;
}

/** The value of a plain environment variable of a container, or undefined. */
export function envValue(container: Container, name: string): string | undefined {
  return container.env.find((e) => e.name === name)?.value;
}
