import type { TestProjectInlineConfiguration, UserWorkspaceConfig } from 'vitest/config';

export declare function packageProject(
  dir: string,
  overrides?: TestProjectInlineConfiguration['test'],
): UserWorkspaceConfig;

export declare function heavyProject(
  dir: string,
  overrides?: TestProjectInlineConfiguration['test'],
): UserWorkspaceConfig;
