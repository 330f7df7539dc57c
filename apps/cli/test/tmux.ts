import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { requireSystemComponent } from '@slipstream/test-servers';
import { expect, vi } from 'vitest';

const exec = promisify(execFile);

/**
 * A 200x50 terminal running bash in a tmux server of its own (its own socket): slip in a real
 * terminal, as a person would. Without tmux (the Debian package) the test is skipped on a
 * developer's machine and fails under CI, as requireSystemComponent does.
 */
export class Terminal {
  readonly #socket = `slip-test-${process.pid}-${Math.random().toString(36).slice(2)}`;
  readonly #tmux: string;

  private constructor(tmux: string) {
    this.#tmux = tmux;
  }

  static async open(env: NodeJS.ProcessEnv): Promise<Terminal> {
    const terminal = new Terminal(requireSystemComponent('tmux'));
    await exec(
      terminal.#tmux,
      [
        '-L',
        terminal.#socket,
        '-f',
        '/dev/null',
        'new-session',
        '-d',
        '-x',
        '200',
        '-y',
        '50',
        'bash --norc --noprofile',
      ],
      {
        env: { ...env, PS1: '$ ', TERM: 'xterm-256color' },
      },
    );
    return terminal;
  }

  /** Types `keys` (tmux key names such as Enter, Down, BSpace, or literal text with `literal`). */
  async keys(...keys: string[]): Promise<void> {
    await exec(this.#tmux, ['-L', this.#socket, 'send-keys', ...keys]);
  }

  async type(text: string): Promise<void> {
    await exec(this.#tmux, ['-L', this.#socket, 'send-keys', '-l', text]);
  }

  /** What the terminal shows now; with `escapes`, the colour codes too. */
  async screen(escapes = false): Promise<string> {
    const { stdout } = await exec(this.#tmux, [
      '-L',
      this.#socket,
      'capture-pane',
      '-p',
      ...(escapes ? ['-e'] : []),
      '-S',
      '-200',
    ]);
    return stdout;
  }

  /** Waits (up to 10 s) until the screen shows `text`, and returns the screen. */
  async shows(text: string | RegExp): Promise<string> {
    return vi.waitFor(
      async () => {
        const screen = await this.screen();
        if (typeof text === 'string') expect(screen).toContain(text);
        else expect(screen).toMatch(text);
        return screen;
      },
      { timeout: 20_000, interval: 50 },
    );
  }

  async close(): Promise<void> {
    await exec(this.#tmux, ['-L', this.#socket, 'kill-server']).catch(() => {});
  }
}
