import { afterEach, describe, expect, test, vi } from 'vitest';
import type { SerializedError, TestModule, TestSpecification } from 'vitest/node';
import PlainSummaryReporter from '../../plain-summary-reporter.js';

type State = 'passed' | 'failed' | 'skipped' | 'pending';

const project = (name: string) => ({ name, config: { root: '/repo' } });

function spec(projectName: string, file: string): TestSpecification {
  return { project: project(projectName), moduleId: `/repo/${file}` } as unknown as TestSpecification;
}

function module(projectName: string, file: string, state: string, tests: State[]): TestModule {
  return {
    project: project(projectName),
    moduleId: `/repo/${file}`,
    relativeModuleId: file,
    state: () => state,
    children: { allTests: () => tests.map((s) => ({ result: () => ({ state: s }) })) },
  } as unknown as TestModule;
}

function summary(
  specs: TestSpecification[],
  modules: TestModule[],
  errors: SerializedError[] = [],
): string[] {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  const reporter = new PlainSummaryReporter();
  reporter.onTestRunStart(specs);
  reporter.onTestRunEnd(modules, errors);
  return log.mock.calls.map((call) => String(call[0]));
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the plain summary line', () => {
  test('counts tests by their result', () => {
    const lines = summary(
      [spec('unit', 'a.test.ts')],
      [module('unit', 'a.test.ts', 'failed', ['passed', 'passed', 'failed', 'skipped'])],
    );
    expect(lines).toEqual(['2 passed, 1 failed, 1 skipped']);
  });

  test('a scheduled file of a project that never started counts as failed, by name', () => {
    const lines = summary(
      [spec('unit', 'a.test.ts'), spec('browser (chromium)', 'b.test.ts')],
      [module('unit', 'a.test.ts', 'passed', ['passed', 'passed'])],
      [{ message: 'browserType.launch: Target page, context or browser has been closed' } as SerializedError],
    );
    expect(lines).toEqual([
      '✗ browser (chromium): b.test.ts did not run',
      '✗ error outside any test: browserType.launch: Target page, context or browser has been closed',
      '2 passed, 2 failed, 0 skipped',
    ]);
  });

  test('a file that failed to load, or never left the queue, counts as one failure', () => {
    const lines = summary(
      [spec('unit', 'broken.test.ts'), spec('unit', 'queued.test.ts')],
      [module('unit', 'broken.test.ts', 'failed', []), module('unit', 'queued.test.ts', 'queued', [])],
    );
    expect(lines.at(-1)).toBe('0 passed, 2 failed, 0 skipped');
    expect(lines).toContain('✗ unit: broken.test.ts failed outside its tests');
    expect(lines).toContain('✗ unit: queued.test.ts did not run');
  });

  test('a file whose failures are its tests is not counted twice', () => {
    const lines = summary([spec('unit', 'a.test.ts')], [module('unit', 'a.test.ts', 'failed', ['failed'])]);
    expect(lines).toEqual(['0 passed, 1 failed, 0 skipped']);
  });
});
