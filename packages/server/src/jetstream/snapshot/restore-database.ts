/**
 * A file stream's database as a restore receives it (`database` records of the archive):
 * written to the staging file piece by piece, then trusted only once checked as a whole. The
 * file came from outside: it must hold nothing but tables and indexes (a trigger or view would
 * run inside the stream later), SQLite must find its structure sound, and every message must
 * match its checksum.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { type MessageStore, NO_LIMITS } from '../store/message-store.js';
import { sqlite } from '../store/sqlite-module.js';
import { openSqliteStore } from '../store/sqlite-store.js';

export class StagedDatabase {
  #fd: number | undefined;

  constructor(
    private readonly name: string,
    private readonly path: string,
  ) {
    this.#fd = openSync(path, 'wx');
  }

  /** Appends the next piece of the file. */
  write(bytes: Uint8Array): void {
    writeSync(this.#fd!, bytes);
  }

  /** The checked database, opened as a store without limits; throws what is wrong with it. */
  open(): MessageStore {
    this.close();
    refuseCode(this.path);
    const store = openSqliteStore({ name: this.name, path: this.path, limits: NO_LIMITS });
    try {
      const problem = store.checkStructure?.();
      if (problem) throw new Error(`the archive's database is damaged: ${problem}`);
      const damaged = store.findDamaged();
      if (damaged.length > 0) {
        throw new Error(`${damaged.length} damaged messages (first at sequence ${damaged[0]})`);
      }
      return store;
    } catch (error) {
      void store.close();
      throw error;
    }
  }

  /** Stops writing (the file stays for whoever removes the staging directory). */
  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
  }
}

/** Refuses a database whose schema holds code: triggers and views. */
function refuseCode(path: string): void {
  let db: Database.Database | undefined;
  try {
    const Sqlite = sqlite();
    db = new Sqlite(path, { fileMustExist: true });
    const code = db
      .prepare("SELECT count(*) FROM sqlite_schema WHERE type IN ('trigger', 'view')")
      .pluck()
      .get() as number;
    if (code > 0) throw new Error("the archive's database holds triggers or views");
  } catch (error) {
    if (error instanceof sqlite().SqliteError) {
      throw new Error(`the archive's database cannot be read: ${error.message}`);
    }
    throw error;
  } finally {
    db?.close();
  }
}
