import type Database from 'better-sqlite3';
import type { ConsumerStore, SavedConsumer } from './message-store.js';

/**
 * The consumers table: one row per consumer with its config and its encoded state. State
 * changes are only marked; the group writes each changed state once, just before its COMMIT.
 */
export class SqliteConsumerStore implements ConsumerStore {
  private readonly changed = new Map<string, () => string>();
  private readonly upsert: Database.Statement;
  private readonly updateState: Database.Statement;
  private readonly deleteOne: Database.Statement;
  private readonly selectAll: Database.Statement;

  constructor(
    db: Database.Database,
    /** Runs a write inside the current commit group; `synced` false for bookkeeping. */
    private readonly write: (write: () => void, synced?: boolean) => void,
  ) {
    this.upsert = db.prepare(
      'INSERT INTO consumers (name, config, created) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET config = excluded.config',
    );
    this.updateState = db.prepare('UPDATE consumers SET state = ? WHERE name = ?');
    this.deleteOne = db.prepare('DELETE FROM consumers WHERE name = ?');
    this.selectAll = db
      .prepare('SELECT name, config, created, state FROM consumers ORDER BY name')
      .safeIntegers(true);
  }

  saveConfig(name: string, config: string, created: bigint): void {
    this.write(() => this.upsert.run(name, config, created));
  }

  stateChanged(name: string, encode: () => string): void {
    // Joins (or opens) the turn's transaction, so that a commit and its hook follow; ack
    // state needs no sync of its own (commit-group.ts).
    this.write(() => {}, false);
    this.changed.set(name, encode);
  }

  remove(name: string): void {
    this.changed.delete(name);
    this.write(() => this.deleteOne.run(name));
  }

  list(): SavedConsumer[] {
    return (
      this.selectAll.all() as {
        name: string;
        config: string;
        created: bigint;
        state: string | null;
      }[]
    ).map((row) => ({
      name: row.name,
      config: row.config,
      created: row.created,
      state: row.state ?? undefined,
    }));
  }

  /** The commit group's last step: each changed state, encoded now. */
  writeChangedStates(): void {
    for (const [name, encode] of this.changed) this.updateState.run(encode(), name);
    this.changed.clear();
  }
}
