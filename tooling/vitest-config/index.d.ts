import type { TestProjectInlineConfiguration, UserWorkspaceConfig } from 'vitest/config';

export declare function packageProject(
  dir: string,
  overrides?: TestProjectInlineConfiguration['test'],
): UserWorkspaceConfig;
