import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from './usage-error.js';

/** What a saved context holds: the connection flags, by their flag names. */
export interface ContextSettings {
  description?: string;
  server?: string;
  user?: string;
  password?: string;
  token?: string;
  creds?: string;
  nkey?: string;
  tlscert?: string;
  tlskey?: string;
  tlsca?: string;
}

export const contextSettingNames = [
  'server',
  'user',
  'password',
  'token',
  'creds',
  'nkey',
  'tlscert',
  'tlskey',
  'tlsca',
] as const satisfies ReadonlyArray<keyof ContextSettings>;

/**
 * Saved contexts, as the nats CLI keeps them: one JSON file a context in `context/`, and the
 * selected one's name in `context.txt`, under $XDG_CONFIG_HOME/slip (~/.config/slip by default).
 */
export class ContextStore {
  readonly dir = join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'slip');

  async save(name: string, settings: ContextSettings): Promise<void> {
    await mkdir(join(this.dir, 'context'), { recursive: true, mode: 0o700 });
    // Passwords and tokens may be in it: readable by its owner only.
    await writeFile(this.#file(name), `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
  }

  async load(name: string): Promise<ContextSettings> {
    try {
      return JSON.parse(await readFile(this.#file(name), 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new UsageError(`unknown context "${name}"`);
      }
      throw error;
    }
  }

  async names(): Promise<string[]> {
    const files = await readdir(join(this.dir, 'context')).catch(() => []);
    return files
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -'.json'.length))
      .sort();
  }

  async remove(name: string): Promise<void> {
    await this.load(name);
    await rm(this.#file(name));
    if ((await this.selected()) === name) await rm(join(this.dir, 'context.txt'), { force: true });
  }

  async select(name: string): Promise<void> {
    await this.load(name);
    await writeFile(join(this.dir, 'context.txt'), name);
  }

  async selected(): Promise<string | undefined> {
    const name = await readFile(join(this.dir, 'context.txt'), 'utf8').catch(() => '');
    return name.trim() || undefined;
  }

  #file(name: string): string {
    if (!/^[\w.-]+$/.test(name) || name.startsWith('.')) {
      throw new UsageError(`invalid context name "${name}": use letters, digits, '-', '_' and '.'`);
    }
    return join(this.dir, 'context', `${name}.json`);
  }
}
