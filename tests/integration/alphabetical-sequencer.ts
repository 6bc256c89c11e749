import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Integration files share one sandbox and some change it for good (a purge leaves orders/2's
 * target behind its source forever), so they run in a fixed, alphabetical order:
 * collector/ → kafka/ → sandbox/replication → sandbox/scenarios.
 */
export class AlphabeticalSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => a.moduleId.localeCompare(b.moduleId));
  }
}
