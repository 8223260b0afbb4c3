import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * vitest runs the files it has no timings for (a fresh checkout, as in CI) largest first, which
 * puts the fuzz files, short to read and the longest to run, last: one worker then finishes them
 * alone. They go first instead, and so does the cluster test (about 90 s of one worker, mostly
 * waiting on its own processes); everything else keeps vitest's order.
 */
const SLOW = /\/test\/(fuzz(-[a-z]+)?|cluster)\.test\.ts$/;

export default class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return [...sorted.filter((f) => SLOW.test(f.moduleId)), ...sorted.filter((f) => !SLOW.test(f.moduleId))];
  }
}
