import { UsageError } from './usage-error.js';

/** What a message body template can refer to, besides the clock. */
export interface TemplateValues {
  /** 1 for the first message published (or request answered), 2 for the next... */
  count: number;
  /** The body of the request being answered (`slip reply`). */
  request?: string;
}

/** Where `{{ID}}` takes its unique IDs from (the client's NUID generator). */
interface IdSource {
  next(): string;
}

// The names the nats CLI's body templates use; `{{ Count }}` and `{{Count}}` are the same.
const fields: Record<string, (values: TemplateValues, ids: IdSource) => string> = {
  Count: (v) => String(v.count),
  TimeStamp: () => new Date().toISOString(),
  Time: () => new Date().toTimeString().slice(0, 8),
  Unix: () => String(Math.floor(Date.now() / 1000)),
  UnixNano: () => `${BigInt(Date.now()) * 1_000_000n}`,
  ID: (_, ids) => ids.next(),
  Request: (v) => v.request ?? '',
};

/**
 * A body with `{{Count}}`, `{{TimeStamp}}`, `{{Unix}}`, `{{UnixNano}}`, `{{Time}}`, `{{ID}}`
 * and `{{Request}}` filled in. Checked once up front, so a typo fails before anything is sent.
 */
export async function compileTemplate(body: string): Promise<(values: TemplateValues) => string> {
  const pattern = /\{\{\s*(\w+)\s*\}\}/g;
  for (const [, name] of body.matchAll(pattern)) {
    if (!(name in fields)) {
      throw new UsageError(
        `unknown template field {{${name}}} (known: ${Object.keys(fields).join(', ')})`,
      );
    }
  }
  if (!body.includes('{{')) return () => body;
  // Loaded here rather than at start, as `slip --help` and most commands fill no template.
  const { nuid } = await import('@slipstream/client');
  return (values) => body.replace(pattern, (_, name: string) => fields[name]?.(values, nuid) ?? '');
}
