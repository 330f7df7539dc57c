import type Database from 'better-sqlite3';
import type { ConsumerStore, SavedConsumer } from './message-store.js';
import { addConsumerChecksumColumns, consumerChecksum } from './sqlite-schema.js';

/**
 * The consumers table: one row per consumer with its config and its encoded state, each with a
 * CRC-32 (sqlite-schema.ts's consumerChecksum) that the start's check reads. State
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
    addConsumerChecksumColumns(db);
    this.upsert = db.prepare(
      'INSERT INTO consumers (name, config, created, config_checksum) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET config = excluded.config, config_checksum = excluded.config_checksum',
    );
    this.updateState = db.prepare(
      'UPDATE consumers SET state = ?, state_checksum = ? WHERE name = ?',
    );
    this.deleteOne = db.prepare('DELETE FROM consumers WHERE name = ?');
    this.selectAll = db
      .prepare('SELECT name, config, created, state FROM consumers ORDER BY name')
      .safeIntegers(true);
  }

  saveConfig(name: string, config: string, created: bigint): void {
    const checksum = consumerChecksum(name, config, created);
    this.write(() => this.upsert.run(name, config, created, checksum));
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
    for (const [name, encode] of this.changed) {
      const state = encode();
      this.updateState.run(state, consumerChecksum(name, state), name);
    }
    this.changed.clear();
  }
}
