// `npm run image`: builds the OCI image `gapwatch:<package.json version>` with Debian's buildah (scripts/image/):
// `npm run image -- --force` builds it again even when an image of the same sources and recipe exists.
// docs/image.md says how to run it.
import { parseFlags } from "./args";
import { buildImage } from "./image/build-image";

const { flags } = parseFlags(process.argv.slice(2));
const say = (line: string) => process.stdout.write(`${line}\n`);

buildImage({ log: say, force: flags.force === "true" })
  .then((image) => {
    say(`${image.tag} ${image.imageId.slice(0, 12)} ${(image.sizeBytes / 1e6).toFixed(1)} MB (${image.reused ? "reused" : `built in ${image.seconds.toFixed(0)} s`})`);
    for (const [name, value] of Object.entries(image.labels)) say(`  ${name}=${value}`);
  })
  .catch((err: unknown) => {
    process.stderr.write(`npm run image failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
