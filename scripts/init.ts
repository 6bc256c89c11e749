// `npm run init -- --from mm2.properties | --from-strimzi kafkamirrormaker2.yaml [--out gapwatch.config.yaml] [--force]`:
// writes Gapwatch's config from MirrorMaker 2's own properties file or a Strimzi KafkaMirrorMaker2 resource (cluster
// aliases, bootstrap servers, TLS/SASL with secrets as ${ENV} references), validates it, and says what is left to do.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildConfigFromMm2Properties, type Mm2ConfigImport } from "@/lib/config/config-from-mm2";
import { buildConfigFromStrimzi } from "@/lib/config/config-from-strimzi";
import { parseJavaProperties } from "@/lib/config/java-properties";
import { validateConfigText } from "@/lib/config/load";
import { parseFlags } from "./args";

function runInit(argv: string[]): number {
  const { flags } = parseFlags(argv);
  const from = flags.from === "true" ? undefined : flags.from;
  const strimzi = flags["from-strimzi"] === "true" ? undefined : flags["from-strimzi"];
  if ((from === undefined) === (strimzi === undefined)) {
    process.stderr.write("usage: npm run init -- --from <mm2.properties> | --from-strimzi <kafkamirrormaker2.yaml> [--out gapwatch.config.yaml] [--force]\n");
    return 2;
  }
  const out = path.resolve(flags.out ?? "gapwatch.config.yaml");
  if (existsSync(out) && flags.force !== "true") {
    process.stderr.write(`${out} exists; pass --force to overwrite it, or --out <another file>\n`);
    return 1;
  }
  const imported = readImport(from, strimzi);
  // Validate what was written as Gapwatch will read it, with placeholder secrets.
  const placeholders = Object.fromEntries(imported.envVars.map((v) => [v.name, "placeholder"]));
  validateConfigText(imported.yaml, out, { ...placeholders, NODE_ENV: "production" });
  writeFileSync(out, imported.yaml);
  process.stdout.write(`Wrote ${out}\n`);
  for (const v of imported.envVars) process.stdout.write(`  set ${v.name}: ${v.why}\n`);
  for (const note of imported.notes) process.stdout.write(`  note: ${note}\n`);
  const shown = path.relative(process.cwd(), out).startsWith("..") ? out : path.relative(process.cwd(), out);
  process.stdout.write(`Then: npm run build && GAPWATCH_CONFIG=${shown} npm start\n`);
  return 0;
}

/** Exactly one of `from` (mm2.properties) and `strimzi` (a KafkaMirrorMaker2 YAML) is given. */
function readImport(from: string | undefined, strimzi: string | undefined): Mm2ConfigImport {
  if (strimzi !== undefined) return buildConfigFromStrimzi(readFileSync(strimzi, "utf8"), path.basename(strimzi));
  const file = from!;
  return buildConfigFromMm2Properties(parseJavaProperties(readFileSync(file, "utf8")), path.basename(file));
}

try {
  process.exit(runInit(process.argv.slice(2)));
} catch (err) {
  process.stderr.write(`init: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
