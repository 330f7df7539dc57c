import { isSubsetMatch, subjectsCollide } from '@slipstream/protocol';

/** nats-server's ErrImportFormsCycle, the reason a config with such imports does not start. */
export const IMPORT_CYCLE = 'import forms a cycle';

/** What the cycle check needs of an account: its name and the imports added so far. */
export interface ImportingAccount {
  readonly name: string;
  readonly streamImports: readonly { readonly exporter: ImportingAccount; readonly to: string }[];
  readonly serviceImports: readonly {
    readonly exporter: ImportingAccount;
    /** The subject requests are published on in the importing account. */
    readonly from: string;
    /** The exporter's subject they go to. */
    readonly to: string;
  }[];
  exportsStreamMatching(subject: string): boolean;
}

/**
 * Whether `importer` taking `exporter`'s stream as `to` would close a loop: following the
 * stream imports of colliding subjects from the exporter leads back to an account already on
 * the path (nats-server's streamImportFormsCycle).
 */
export function streamImportFormsCycle(
  importer: ImportingAccount,
  exporter: ImportingAccount,
  to: string,
): boolean {
  const visited = new Set([importer.name]);
  const visit = (account: ImportingAccount, subject: string): boolean => {
    if (!account.exportsStreamMatching(subject)) return false;
    for (const im of account.streamImports) {
      if (!subjectsCollide(subject, im.to)) continue;
      if (visited.has(im.exporter.name)) return true;
      visited.add(account.name);
      if (visit(im.exporter, isSubsetMatch(im.to, subject) ? im.to : subject)) return true;
    }
    return false;
  };
  return visit(exporter, to);
}

/**
 * Whether `importer` sending requests on `from` to `exporter` would close a loop: following
 * the exporter's service imports whose target collides leads back to an account already on the
 * path (nats-server's serviceImportFormsCycle, which compares with the targets as it does).
 */
export function serviceImportFormsCycle(
  importer: ImportingAccount,
  exporter: ImportingAccount,
  from: string,
): boolean {
  const visited = new Set([importer.name]);
  const visit = (account: ImportingAccount, subject: string): boolean => {
    for (const im of account.serviceImports) {
      if (!subjectsCollide(subject, im.to)) continue;
      if (visited.has(im.exporter.name)) return true;
      visited.add(account.name);
      if (visit(im.exporter, isSubsetMatch(im.from, subject) ? im.from : subject)) return true;
    }
    return false;
  };
  return visit(exporter, from);
}
