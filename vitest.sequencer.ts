import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { SLOW_FILES } from './vitest.groups.ts';

/**
 * Vitest's own order, except that within each project the files in SLOW_FILES start
 * first, in the listed order. Without a results cache (a fresh clone in CI) vitest starts
 * the largest files first, and size says little here: the Claude Agent SDK hook tests are
 * three-line files and were among the last to start, so the run ended with one worker
 * busy on them and the other idle. The projects keep their order and stay contiguous (the
 * unit files share workers only while they run back to back).
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const byProject = new Map<string, TestSpecification[]>();
    for (const spec of sorted) {
      const name = spec.project.name;
      byProject.set(name, [...(byProject.get(name) ?? []), spec]);
    }
    // Array.prototype.sort is stable: unlisted files keep vitest's order behind the listed ones.
    return [...byProject.values()].flatMap((specs) => specs.sort((a, b) => slowRank(a) - slowRank(b)));
  }
}

function slowRank(spec: TestSpecification): number {
  const path = spec.moduleId.replaceAll('\\', '/');
  const index = SLOW_FILES.findIndex((file) => path.endsWith(`/${file}`));
  return index === -1 ? SLOW_FILES.length : index;
}
