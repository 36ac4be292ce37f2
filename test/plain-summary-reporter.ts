import type { Reporter, SerializedError, TestModule, TestSpecification } from 'vitest/node';

/**
 * CI reads one plain closing line; Vitest's own summary is not in that form. Tests that never ran
 * count as failed: a test file that did not load (its tests are unknown, so the file counts as
 * one), a file that was scheduled but never reported (a project whose browser or server did not
 * start), and an error outside any test. Otherwise a busy port could turn 170 missing tests into
 * a green-looking "N passed, 0 failed".
 */
export default class PlainSummaryReporter implements Reporter {
  private scheduled: TestSpecification[] = [];

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.scheduled = [...specifications];
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    const counts = { passed: 0, failed: 0, skipped: 0, pending: 0 };
    const notRun: string[] = [];
    const key = (project: string, moduleId: string) => `${project}\0${moduleId}`;
    const reported = new Map(modules.map((module) => [key(module.project.name, module.moduleId), module]));
    for (const module of modules) {
      let failedTests = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        counts[state] += 1;
        if (state === 'failed') failedTests += 1;
      }
      const state = module.state();
      if ((state === 'failed' && failedTests === 0) || state === 'queued' || state === 'pending') {
        counts.failed += 1;
        notRun.push(
          `${module.project.name}: ${module.relativeModuleId} ${state === 'failed' ? 'failed outside its tests' : 'did not run'}`,
        );
      }
    }
    for (const spec of this.scheduled) {
      if (reported.has(key(spec.project.name, spec.moduleId))) continue;
      counts.failed += 1;
      notRun.push(
        `${spec.project.name}: ${spec.moduleId.replace(`${spec.project.config.root}/`, '')} did not run`,
      );
    }
    counts.failed += unhandledErrors.length;
    for (const error of unhandledErrors)
      notRun.push(`error outside any test: ${error.message ?? error.name ?? 'unknown'}`);
    for (const line of notRun) console.log(`✗ ${line}`);
    console.log(`${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  }
}
