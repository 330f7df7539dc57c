import type { Command } from 'commander';
import { type Act, example } from '../command-kit.js';
import { confirmed } from '../confirm.js';
import { type ContextSettings, ContextStore, contextSettingNames } from '../contexts.js';
import { table } from '../style.js';

/** `slip context add|ls|select|rm|info`: saved connection settings, as `nats context`. */
export function registerContext(program: Command, act: Act): void {
  const context = program.command('context').description('manage saved connection contexts');
  const store = new ContextStore();

  example(
    context
      .command('add <name>')
      .description('save the connection flags given (-s, --user, --creds, ...) as a context')
      .option('--description <text>', 'what the context is for')
      .option('--select', 'also make it the selected context'),
    'slip context add local --server nats://127.0.0.1:4222 --description "my laptop" --select',
  ).action(
    act(async (session, name: string, options: { description?: string; select?: boolean }) => {
      const settings: ContextSettings = { description: options.description };
      for (const key of contextSettingNames) settings[key] = session.options[key];
      await store.save(name, settings);
      if (options.select) await store.select(name);
      session.note(`Saved context "${name}"${options.select ? ' and selected it' : ''}`);
    }),
  );

  example(
    context
      .command('ls')
      .alias('list')
      .description('list the saved contexts; * marks the selected one'),
    'slip context ls',
  ).action(
    act(async (session) => {
      const selected = (await session.options.context) ?? (await store.selected());
      const rows = await Promise.all(
        (await store.names()).map(async (name) => ({ name, ...(await store.load(name)) })),
      );
      if (session.json)
        return session.printJson(rows.map((r) => ({ ...r, selected: r.name === selected })));
      if (rows.length === 0)
        return session.note('No contexts saved: add one with slip context add');
      session.out(
        table(
          ['Name', 'Description', 'Server'],
          rows.map((r) => [
            r.name === selected ? `${r.name}*` : r.name,
            r.description ?? '',
            r.server ?? '',
          ]),
          'Known contexts',
        ),
      );
    }),
  );

  example(
    context.command('select <name>').description('use this context when no --context is given'),
    'slip context select local',
  ).action(
    act(async (session, name: string) => {
      await store.select(name);
      session.note(`Selected context "${name}"`);
    }),
  );

  example(
    context.command('info <name>').description('show a saved context'),
    'slip context info local',
  ).action(
    act(async (session, name: string) => {
      const settings = await store.load(name);
      if (session.json) return session.printJson({ name, ...settings });
      session.out(
        table(
          ['Setting', 'Value'],
          Object.entries(settings).map(([key, value]) => [
            key,
            key === 'password' || key === 'token' ? '*****' : String(value),
          ]),
          `Context ${name}`,
        ),
      );
    }),
  );

  example(
    context
      .command('rm <name>')
      .description('delete a saved context')
      .option('-f, --force', 'do not ask for confirmation'),
    'slip context rm old -f',
  ).action(
    act(async (session, name: string, options: { force?: boolean }) => {
      if (!(await confirmed(`delete context "${name}"`, options.force))) return;
      await store.remove(name);
      session.note(`Removed context "${name}"`);
    }),
  );
}
