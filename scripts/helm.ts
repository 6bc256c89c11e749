// `npm run helm`: builds the helm CLI when missing (scripts/helm/helm-cli.ts), then `helm lint --strict` and
// `helm template` of the chart (deploy/helm/gapwatch) with each values example (deploy/helm/examples/*.yaml).
// The rendered manifests are asserted by tests/helm (the `helm` stage of `npm test` runs that vitest project).
import path from "node:path";
import { repoRoot } from "@/lib/sandbox/paths";
import { ensureHelm, lintChart, listValuesExamples, renderChart } from "./helm/helm-cli";

const say = (line: string) => process.stdout.write(`${line}\n`);

function main(): void {
  const helm = ensureHelm(say);
  for (const example of listValuesExamples()) {
    lintChart(helm, example);
    const manifests = renderChart(helm, example).split(/^---$/m).filter((doc) => /^kind:/m.test(doc)).length;
    say(`${path.relative(repoRoot, example)}: helm lint --strict ok, helm template ok (${manifests} manifests)`);
  }
}

try {
  main();
} catch (err) {
  process.stderr.write(`npm run helm: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
