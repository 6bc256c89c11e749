// `npm run build`: the Next.js build and, stamped with its BUILD_ID, the bundle of role all's collector process that
// `next start` runs (scripts/app-build.ts). Always builds; `npm run demo`, the tests and the bench skip an unchanged
// build.
import { buildApp } from "./app-build";

buildApp((line) => process.stdout.write(`${line}\n`)).catch((err: unknown) => {
  process.stderr.write(`build failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
