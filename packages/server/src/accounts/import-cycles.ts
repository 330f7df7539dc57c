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
  return leadsBack(importer, exporter, to, {
    imports: (account) => account.streamImports,
    narrowed: (im) => im.to,
    passes: (account, subject) => account.exportsStreamMatching(subject),
  });
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
  return leadsBack(importer, exporter, from, {
    imports: (account) => account.serviceImports,
    narrowed: (im) => im.from,
    passes: () => true,
  });
}

interface Import {
  readonly exporter: ImportingAccount;
  readonly to: string;
}

/**
 * The walk both checks make: from `exporter`, through each import whose `to` collides with the
 * subject (narrowed to the import's own subject when that is the smaller), until an account
 * already visited is an exporter again.
 */
function leadsBack<I extends Import>(
  importer: ImportingAccount,
  exporter: ImportingAccount,
  subject: string,
  walk: {
    imports(account: ImportingAccount): readonly I[];
    narrowed(im: I): string;
    passes(account: ImportingAccount, subject: string): boolean;
  },
): boolean {
  const visited = new Set([importer.name]);
  const visit = (account: ImportingAccount, subject: string): boolean => {
    if (!walk.passes(account, subject)) return false;
    for (const im of walk.imports(account)) {
      if (!subjectsCollide(subject, im.to)) continue;
      if (visited.has(im.exporter.name)) return true;
      visited.add(account.name);
      const narrowed = walk.narrowed(im);
      if (visit(im.exporter, isSubsetMatch(narrowed, subject) ? narrowed : subject)) return true;
    }
    return false;
  };
  return visit(exporter, subject);
}
