import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/**
 * Programs some tests need that a package manager cannot install: they come from the OS. `fuse`
 * is FUSE 3 as the power-loss tests build and mount their filesystem: fusermount3 (what is
 * found), with /dev/fuse, libfuse3's headers, pkg-config and a C compiler beside it.
 */
export type SystemComponent = 'nats-server' | 'chromium' | 'strace' | 'tmux' | 'fuse';

/** How a newcomer gets every system component at once (Debian and Ubuntu package names). */
export const installCommand =
  'apt-get install nats-server chromium strace tmux fuse3 libfuse3-dev pkg-config';

// Where each component may be: an environment override, then its names looked up on PATH.
const overrides: Record<SystemComponent, string> = {
  'nats-server': 'NATS_SERVER_BIN',
  chromium: 'CHROMIUM_PATH',
  strace: 'STRACE_BIN',
  tmux: 'TMUX_BIN',
  fuse: 'FUSERMOUNT_BIN',
};
const commandNames: Record<SystemComponent, readonly string[]> = {
  'nats-server': ['nats-server'],
  chromium: ['chromium', 'chromium-browser'],
  strace: ['strace'],
  tmux: ['tmux'],
  fuse: ['fusermount3'],
};
/**
 * What else a component needs beside its program, each a path that must exist (checked unless
 * the override names the program: then the machine is taken as it is said to be).
 */
const companions: Partial<Record<SystemComponent, readonly string[]>> = {
  fuse: ['/dev/fuse', '/usr/include/fuse3/fuse.h'],
};
const companionCommands: Partial<Record<SystemComponent, readonly string[]>> = {
  fuse: ['cc', 'pkg-config'],
};
// Debian puts nats-server in /usr/sbin, which a normal user's PATH lacks.
const extraDirs = ['/usr/sbin', '/usr/local/sbin'];

/**
 * Names the components (comma-separated) that the finder reports as not installed, whatever the
 * machine has: tests of the skipping machinery use it to see a machine without them.
 */
export const hideVariable = 'HIDE_SYSTEM_COMPONENTS';

/**
 * Thrown outside CI when a test needs a component that is not installed. The shared vitest
 * runner (@slipstream/vitest-config) reports a test or suite that threw it as skipped, with
 * this message as the reason; the error is recognised by its name.
 */
export class MissingSystemComponentError extends Error {
  override name = 'MissingSystemComponentError';
}

/** The absolute path of the component's executable, or undefined if it is not installed. */
export function findSystemComponent(component: SystemComponent): string | undefined {
  if (hiddenComponents().includes(component)) return undefined;
  const override = process.env[overrides[component]];
  if (override) return isAbsolute(override) ? executable(override) : onPath(override);
  if (missingCompanion(component) !== undefined) return undefined;
  for (const name of commandNames[component]) {
    const found = onPath(name);
    if (found) return found;
  }
  return undefined;
}

/** Every component that is not installed, in a stable order. */
export function missingSystemComponents(): SystemComponent[] {
  return (Object.keys(overrides) as SystemComponent[]).filter((c) => !findSystemComponent(c));
}

/** CI must run every test, so there a missing component fails instead of skipping. */
export function underCi(): boolean {
  const ci = process.env.CI ?? '';
  return ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}

/**
 * The component's executable. If it is missing, throws: a MissingSystemComponentError (the
 * test is skipped) on a developer's machine, a plain Error (the test fails) under CI.
 */
export function requireSystemComponent(component: SystemComponent): string {
  const found = findSystemComponent(component);
  if (found) return found;
  const where = hiddenComponents().includes(component)
    ? `hidden by ${hideVariable}`
    : process.env[overrides[component]]
      ? `${overrides[component]}=${process.env[overrides[component]]} is not executable`
      : (missingCompanion(component) ?? `no ${commandNames[component].join(' or ')} on PATH`);
  if (underCi()) {
    throw new Error(
      `${component} is not installed (${where}), and under CI every test must run: ${installCommand}`,
    );
  }
  throw new MissingSystemComponentError(
    `${component} is not installed (${where}); install it with: ${installCommand}`,
  );
}

/** The first companion of the component that is missing, said as the reason, or undefined. */
function missingCompanion(component: SystemComponent): string | undefined {
  const path = companions[component]?.find((path) => !existsSync(path));
  if (path !== undefined) return `no ${path}`;
  const command = companionCommands[component]?.find((name) => !onPath(name));
  return command === undefined ? undefined : `no ${command} on PATH`;
}

/** The components HIDE_SYSTEM_COMPONENTS names; a name that is no component is an error. */
function hiddenComponents(): SystemComponent[] {
  const names = (process.env[hideVariable] ?? '').split(',').map((name) => name.trim());
  const hidden = names.filter((name) => name !== '');
  for (const name of hidden) {
    if (!Object.hasOwn(overrides, name)) {
      throw new Error(
        `${hideVariable}=${process.env[hideVariable]}: ${name} is not one of ${Object.keys(overrides).join(', ')}`,
      );
    }
  }
  return hidden as SystemComponent[];
}

function onPath(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), ...extraDirs];
  for (const dir of dirs) {
    if (!dir) continue;
    const found = executable(join(dir, name));
    if (found) return found;
  }
  return undefined;
}

function executable(path: string): string | undefined {
  try {
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    return undefined;
  }
}
