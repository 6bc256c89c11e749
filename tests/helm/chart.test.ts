import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { validateConfigText } from "@/lib/config/load";
import { repoRoot } from "@/lib/sandbox/paths";
import { examplesDir, lintChart, listValuesExamples } from "@/scripts/helm/helm-cli";
import {
  type Container, envValue, findManifest, getHelm, type Manifest, podSpecOf, type PodSpec, renderError,
  renderManifests,
} from "./support/manifests";

const example = (name: string) => path.join(examplesDir, name);
const { version } = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string };

/** The container and pod of one Deployment. */
function deploymentParts(manifests: readonly Manifest[], name: string): { pod: PodSpec; container: Container } {
  const pod = podSpecOf(findManifest(manifests, "Deployment", name));
  expect(pod.containers).toHaveLength(1);
  return { pod, container: pod.containers[0]! };
}

/** The rendered gapwatch.config.yaml, validated by Gapwatch's own config loader as a pod would load it. */
function loadRenderedConfig(manifests: readonly Manifest[]) {
  const text = findManifest(manifests, "Secret", "gapwatch-config").stringData?.["gapwatch.config.yaml"] ?? "";
  const names = [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!);
  const known: Record<string, string> = { GAPWATCH_POD_IP: "10.1.2.3", GAPWATCH_DATABASE_URL: "postgres://u:p@pg:5432/gw" };
  const env = Object.fromEntries(names.map((n) => [n, known[n] ?? `${n}-value-long-enough`]));
  return validateConfigText(text, "rendered gapwatch.config.yaml", env);
}

function expectHardenedPod(pod: PodSpec, container: Container): void {
  expect(pod.securityContext).toMatchObject({
    runAsNonRoot: true, runAsUser: 10001, fsGroup: 10001, seccompProfile: { type: "RuntimeDefault" },
  });
  expect(container.securityContext).toMatchObject({
    readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, runAsNonRoot: true, capabilities: { drop: ["ALL"] },
  });
  expect(pod.automountServiceAccountToken).toBe(false);
}

function expectProbes(container: Container): void {
  const port = container.ports.find((p) => p.name === "http");
  expect(port?.containerPort).toBe(3000);
  expect(container.livenessProbe.httpGet).toMatchObject({ path: "/api/health/live", port: "http" });
  expect(container.readinessProbe.httpGet).toMatchObject({ path: "/api/health/ready", port: "http" });
  expect(container.startupProbe.httpGet).toMatchObject({ path: "/api/health/live", port: "http" });
  // The kubelet's default Host (the pod IP) is not in server.allowedHosts by default; localhost always is.
  for (const probe of [container.livenessProbe, container.readinessProbe, container.startupProbe]) {
    expect(probe.httpGet.httpHeaders).toEqual([{ name: "Host", value: "localhost" }]);
  }
}

function volume(pod: PodSpec, name: string): Record<string, unknown> {
  const found = pod.volumes.find((v) => v.name === name);
  if (!found) throw new Error(`no volume ${name}`);
  return found;
}

function mountPath(container: Container, name: string): string | undefined {
  return container.volumeMounts.find((m) => m.name === name)?.mountPath;
}

beforeAll(() => {
  getHelm();
});

describe("helm lint", () => {
  it.each(listValuesExamples().map((f) => path.basename(f)))("passes --strict with %s", (name) => {
    expect(() => lintChart(getHelm(), example(name))).not.toThrow();
  });
});

describe("role all (all-in-one.yaml)", () => {
  let manifests: Manifest[];
  beforeAll(() => {
    manifests = renderManifests(example("all-in-one.yaml"));
  });

  it("runs one pod of the package.json version's image, replaced (not rolled) because it owns the SQLite file", () => {
    const deployment = findManifest(manifests, "Deployment", "gapwatch");
    expect(deployment.spec).toMatchObject({ replicas: 1, strategy: { type: "Recreate" } });
    const { container } = deploymentParts(manifests, "gapwatch");
    expect(container.image).toBe(`gapwatch:${version}`);
    expect(envValue(container, "GAPWATCH_ROLE")).toBe("all");
    expect(envValue(container, "HOSTNAME")).toBe("0.0.0.0");
    expect(manifests.filter((m) => m.kind === "Deployment")).toHaveLength(1);
  });

  it("probes liveness and readiness on the health endpoints, on port 3000", () => {
    expectProbes(deploymentParts(manifests, "gapwatch").container);
  });

  it("runs as uid 10001, non-root, with a read-only root filesystem, no capabilities and seccomp RuntimeDefault", () => {
    const { pod, container } = deploymentParts(manifests, "gapwatch");
    expectHardenedPod(pod, container);
  });

  it("keeps the SQLite file on a PersistentVolumeClaim at /data and gives /tmp a writable emptyDir", () => {
    const { pod, container } = deploymentParts(manifests, "gapwatch");
    expect(envValue(container, "GAPWATCH_DB")).toBe("/data/gapwatch.db");
    expect(mountPath(container, "data")).toBe("/data");
    expect(volume(pod, "data")).toEqual({ name: "data", persistentVolumeClaim: { claimName: "gapwatch-data" } });
    expect(mountPath(container, "tmp")).toBe("/tmp");
    expect(volume(pod, "tmp")).toEqual({ name: "tmp", emptyDir: {} });
    const pvc = findManifest(manifests, "PersistentVolumeClaim", "gapwatch-data");
    expect(pvc.spec).toMatchObject({ accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10Gi" } } });
  });

  it("mounts the config from a Secret at GAPWATCH_CONFIG and passes the secrets as environment variables", () => {
    const { pod, container } = deploymentParts(manifests, "gapwatch");
    expect(envValue(container, "GAPWATCH_CONFIG")).toBe("/config/gapwatch.config.yaml");
    expect(container.volumeMounts).toContainEqual({ name: "config", mountPath: "/config", readOnly: true });
    const items = [{ key: "gapwatch.config.yaml", path: "gapwatch.config.yaml" }];
    expect(volume(pod, "config")).toEqual({ name: "config", secret: { secretName: "gapwatch-config", items } });
    expect(container.envFrom).toEqual([{ secretRef: { name: "gapwatch-env" } }]);
    const envSecret = findManifest(manifests, "Secret", "gapwatch-env");
    expect(Object.keys(envSecret.stringData ?? {}).sort()).toEqual(["GAPWATCH_ADMIN_SECRET", "WEST_KAFKA_PASSWORD"]);
    const caMount = { name: "west-ca", mountPath: "/etc/gapwatch-secrets/west-ca", readOnly: true };
    expect(container.volumeMounts).toContainEqual(caMount);
    expect(volume(pod, "west-ca")).toEqual({ name: "west-ca", secret: { secretName: "west-kafka-ca" } });
  });

  it("renders a config Gapwatch accepts, whose allowed hosts let the Service, localhost and the pod's IP through", () => {
    const config = loadRenderedConfig(manifests);
    expect(config.clusters.map((c) => c.alias)).toEqual(["east", "west"]);
    expect(config.server.allowedHosts).toEqual(expect.arrayContaining([
      "gapwatch.example.com", "localhost", "gapwatch", "gapwatch.kafka.svc", "gapwatch.kafka.svc.cluster.local", "10.1.2.3",
    ]));
    const { container } = deploymentParts(manifests, "gapwatch");
    const podIp = container.env.find((e) => e.name === "GAPWATCH_POD_IP");
    expect(podIp?.valueFrom).toEqual({ fieldRef: { fieldPath: "status.podIP" } });
  });

  it("scrapes /api/metrics of the role-all pod and carries deploy/prometheus/gapwatch-rules.yml as the PrometheusRule", () => {
    const monitor = findManifest(manifests, "ServiceMonitor", "gapwatch");
    expect(monitor.spec).toMatchObject({
      selector: { matchLabels: { "app.kubernetes.io/component": "all" } },
      endpoints: [{ port: "http", path: "/api/metrics", relabelings: [{ targetLabel: "job", replacement: "gapwatch" }] }],
    });
    const rulesText = readFileSync(path.join(repoRoot, "deploy", "prometheus", "gapwatch-rules.yml"), "utf8");
    expect(rulesText).toContain('up{job="gapwatch"}');
    const service = findManifest(manifests, "Service", "gapwatch");
    expect(service.spec).toMatchObject({ ports: [{ name: "http", port: 3000, targetPort: "http" }] });
    const rules = parse(rulesText) as unknown;
    expect(findManifest(manifests, "PrometheusRule", "gapwatch").spec).toEqual(rules);
    expect(manifests.some((m) => m.kind === "NetworkPolicy")).toBe(false);
  });
});

describe("role split (split-postgres.yaml)", () => {
  let manifests: Manifest[];
  beforeAll(() => {
    manifests = renderManifests(example("split-postgres.yaml"));
  });

  it("runs collectors and web instances from the same image, each with its role, sharing PostgreSQL", () => {
    expect(findManifest(manifests, "Deployment", "gapwatch-collector").spec).toMatchObject({ replicas: 2 });
    expect(findManifest(manifests, "Deployment", "gapwatch-web").spec).toMatchObject({ replicas: 3 });
    for (const role of ["collector", "web"]) {
      const { pod, container } = deploymentParts(manifests, `gapwatch-${role}`);
      expect(container.image).toBe(`gapwatch:${version}`);
      expect(envValue(container, "GAPWATCH_ROLE")).toBe(role);
      expect(envValue(container, "GAPWATCH_DB")).toBeUndefined();
      const url = container.env.find((e) => e.name === "GAPWATCH_DATABASE_URL");
      expect(url?.valueFrom).toEqual({ secretKeyRef: { name: "gapwatch-postgres", key: "url" } });
      expect(container.envFrom).toEqual([{ secretRef: { name: "gapwatch-env" } }]);
      expect(volume(pod, "data")).toEqual({ name: "data", emptyDir: {} });
      expectProbes(container);
      expectHardenedPod(pod, container);
    }
    expect(manifests.some((m) => m.kind === "PersistentVolumeClaim")).toBe(false);
    expect(loadRenderedConfig(manifests).store).toEqual({ kind: "postgres", url: "postgres://u:p@pg:5432/gw" });
  });

  it("serves the dashboard from the web instances and scrapes the collectors' metrics", () => {
    const component = (role: string) => ({ "app.kubernetes.io/component": role });
    expect(findManifest(manifests, "Service", "gapwatch").spec).toMatchObject({ selector: component("web") });
    expect(findManifest(manifests, "Service", "gapwatch-collector").spec).toMatchObject({ selector: component("collector") });
    const monitor = findManifest(manifests, "ServiceMonitor", "gapwatch");
    expect(monitor.spec).toMatchObject({ selector: { matchLabels: component("collector") } });
  });

  it("limits egress to DNS, the brokers, Connect's REST port and PostgreSQL", () => {
    const policy = findManifest(manifests, "NetworkPolicy", "gapwatch").spec as {
      policyTypes: string[]; egress: { to: unknown[]; ports: { port: number; protocol: string }[] }[];
      ingress: { ports: { port: string }[] }[];
    };
    expect(policy.policyTypes).toEqual(["Ingress", "Egress"]);
    expect(policy.ingress[0]!.ports).toEqual([{ port: "http", protocol: "TCP" }]);
    expect(policy.egress.map((rule) => rule.ports.map((p) => `${p.port}/${p.protocol}`))).toEqual([
      ["53/UDP", "53/TCP"], ["8083/TCP"], ["9092/TCP"], ["5432/TCP"],
    ]);
    expect(policy.egress[3]!.to).toEqual([{ ipBlock: { cidr: "10.0.5.10/32" } }]);
  });
});

describe("Strimzi (deploy/strimzi/gapwatch-values.yaml)", () => {
  let manifests: Manifest[];
  beforeAll(() => {
    manifests = renderManifests(example("strimzi.yaml"));
  });

  it("reads each cluster's bootstrap Service over TLS with the CA from Strimzi's <cluster>-cluster-ca-cert Secret", () => {
    const config = loadRenderedConfig(manifests);
    const { pod, container } = deploymentParts(manifests, "gapwatch");
    for (const cluster of config.clusters) {
      expect(cluster.bootstrap).toEqual([`${cluster.alias}-kafka-bootstrap:9093`]);
      const ca = typeof cluster.tls === "object" ? cluster.tls.ca : undefined;
      const mount = container.volumeMounts.find((m) => ca?.startsWith(`${m.mountPath}/`));
      expect(mount, `a mount holding ${ca}`).toBeDefined();
      const secretName = `${cluster.alias}-cluster-ca-cert`;
      expect(volume(pod, mount!.name)).toEqual({ name: mount!.name, secret: { secretName } });
      expect(ca).toBe(`${mount!.mountPath}/ca.crt`);
      const sasl = cluster.sasl;
      if (sasl?.mechanism !== "SCRAM-SHA-512") throw new Error(`expected SCRAM-SHA-512, got ${sasl?.mechanism}`);
      const passwordVar = /^(\w+)-value-long-enough$/.exec(sasl.password)?.[1] ?? "";
      const password = container.env.find((e) => e.name === passwordVar);
      expect(password?.valueFrom).toEqual({ secretKeyRef: { name: sasl.username, key: "password" } });
    }
    expect(config.connect.map((c) => c.url)).toEqual(["http://east-to-west-mirrormaker2-api:8083"]);
  });

  it("allows egress to the Strimzi brokers' TLS listener and the MM2 pods' REST port", () => {
    const policy = findManifest(manifests, "NetworkPolicy", "gapwatch").spec as {
      egress: { to: { podSelector?: { matchLabels: Record<string, string> } }[]; ports: { port: number }[] }[];
    };
    const connect = policy.egress.find((rule) => rule.ports.some((p) => p.port === 8083));
    const mm2Pods = { "strimzi.io/cluster": "east-to-west", "strimzi.io/kind": "KafkaMirrorMaker2" };
    expect(connect?.to).toEqual([{ podSelector: { matchLabels: mm2Pods } }]);
    const kafka = policy.egress.find((rule) => rule.ports.some((p) => p.port === 9093));
    expect(kafka?.to.map((peer) => peer.podSelector?.matchLabels["strimzi.io/kind"])).toEqual(["Kafka", "Kafka"]);
  });

  it("is admitted to MM2's REST port by deploy/strimzi/mm2-rest-networkpolicy.yaml, which selects the MM2 pods", () => {
    type Selector = { matchLabels: Record<string, string> };
    const admit = parse(readFileSync(path.join(repoRoot, "deploy", "strimzi", "mm2-rest-networkpolicy.yaml"), "utf8")) as {
      spec: { podSelector: Selector; ingress: { from: { podSelector: Selector }[]; ports: { port: number }[] }[] };
    };
    // The labels Strimzi puts on a KafkaMirrorMaker2's pods (Labels.strimziSelectorLabels, componentName <mm2>-mirrormaker2).
    expect(admit.spec.podSelector.matchLabels).toEqual({
      "strimzi.io/cluster": "east-to-west",
      "strimzi.io/kind": "KafkaMirrorMaker2",
      "strimzi.io/name": "east-to-west-mirrormaker2",
    });
    expect(admit.spec.ingress[0]!.ports).toEqual([{ port: 8083, protocol: "TCP" }]);
    const deployment = findManifest(manifests, "Deployment", "gapwatch");
    const podLabels = (deployment.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    expect(podLabels).toMatchObject(admit.spec.ingress[0]!.from[0]!.podSelector.matchLabels);
  });
});

describe("toggles and refusals (the chart's defaults and --set)", () => {
  const oneCluster = ["config.clusters[0].alias=east", "config.clusters[0].bootstrap=kafka:9092"];

  it("renders no ServiceMonitor, PrometheusRule or NetworkPolicy unless asked, and a PVC by default", () => {
    const kinds = renderManifests(null, oneCluster).map((m) => m.kind).sort();
    expect(kinds).toEqual(["Deployment", "PersistentVolumeClaim", "Secret", "Service", "ServiceAccount"]);
  });

  it("takes the image tag, an existing config Secret and no persistence when set", () => {
    const manifests = renderManifests(null, [
      ...oneCluster, "image.tag=1.2.3", "image.repository=registry.example/gapwatch", "existingSecret=my-config",
      "persistence.enabled=false",
    ]);
    const { pod, container } = deploymentParts(manifests, "gapwatch");
    expect(container.image).toBe("registry.example/gapwatch:1.2.3");
    expect(volume(pod, "config")).toMatchObject({ secret: { secretName: "my-config" } });
    expect(volume(pod, "data")).toEqual({ name: "data", emptyDir: {} });
    expect(manifests.map((m) => m.kind)).not.toContain("Secret");
    expect(manifests.map((m) => m.kind)).not.toContain("PersistentVolumeClaim");
  });

  it("keeps the collectors on their image while the web instances move first (upgrade order)", () => {
    const manifests = renderManifests(example("split-postgres.yaml"), ["collector.imageTag=0.0.9"]);
    expect(deploymentParts(manifests, "gapwatch-collector").container.image).toBe("gapwatch:0.0.9");
    expect(deploymentParts(manifests, "gapwatch-web").container.image).toBe(`gapwatch:${version}`);
  });

  it("adds no host to server.allowedHosts when allowKubernetesHosts is off", () => {
    const manifests = renderManifests(null, [...oneCluster, "allowKubernetesHosts=false"]);
    expect(loadRenderedConfig(manifests).server.allowedHosts).toBeUndefined();
  });

  it("refuses a config without clusters, as Gapwatch would at start", () => {
    expect(renderError([])).toContain("config.clusters is empty");
  });

  it("refuses role split without PostgreSQL, a postgres store without its URL Secret, and mismatched store kinds", () => {
    expect(renderError([...oneCluster, "role=split"])).toContain("role split needs store.kind: postgres");
    const postgres = ["store.kind=postgres", "config.store.kind=postgres", "config.store.url=postgres://pg/gw"];
    const postgresWithoutUrl = [...oneCluster, "role=split", ...postgres];
    expect(renderError(postgresWithoutUrl)).toContain("store.postgres.urlSecret.name");
    expect(renderError([...oneCluster, "store.kind=postgres"]))
      .toContain('config.store.kind is "sqlite" but store.kind is "postgres"');
    expect(renderError([...oneCluster, "role=both"])).toContain('role must be all or split, not "both"');
  });

  it("refuses a secret mounted inside the config's folder", () => {
    const mount = ["name=ca", "secretName=ca", "mountPath=/config/ca"].map((pair) => `extraSecretMounts[0].${pair}`);
    const error = renderError([...oneCluster, ...mount]);
    expect(error).toContain("mountPath /config/ca is inside the config's folder /config");
  });
});
