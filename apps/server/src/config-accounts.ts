import type {
  AccountJetStreamOptions,
  AccountOptions,
  ExportOptions,
  ImportOptions,
  ResponseType,
} from '@slipstream/server';
import * as z from 'zod';
import { parseDuration, parseSize } from './conf/units.js';
import { notSupported, permissions, user } from './config-authorization.js';
import { mappingsBlock } from './config-mappings.js';
import { dropUndefined } from './drop-undefined.js';

// nats-server's `accounts {}` block: per account its nkey, users, subject mappings, exports
// (with latency tracking and account_token_position), imports (with share), client limits and
// JetStream limits. Keys nats-server takes that this server does not implement (max_payload
// and max_leafnodes limits) fail the block by name, as unknown keys do: the account would
// otherwise be less isolated or less limited than configured.

const subjects = z.union([z.string().transform((s) => [s]), z.array(z.string())]);

const responseType = z.string().transform((word, ctx): ResponseType => {
  const type = {
    single: 'singleton',
    singleton: 'singleton',
    stream: 'stream',
    chunk: 'chunked',
    chunked: 'chunked',
  }[word.toLowerCase()] as ResponseType | undefined;
  if (type) return type;
  ctx.addIssue({ code: 'custom', continue: true, message: `unknown response type "${word}"` });
  return z.NEVER;
});

const threshold = z.string().transform((text, ctx) => {
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0) {
    ctx.addIssue({
      code: 'custom',
      continue: true,
      message: `expected a duration like "2m", got "${text}"`,
    });
    return z.NEVER;
  }
  return ms;
});

/** `50%`, `"50"` or 50, or `headers`, as nats-server's latency `sampling`. */
const sampling = z.union([z.number(), z.string()]).transform((given, ctx): number | 'headers' => {
  const text = String(given).trim();
  if (text.toLowerCase() === 'headers') return 'headers';
  const percent = /^[+-]?\d+%?$/.test(text) ? Number.parseInt(text, 10) : Number.NaN;
  if (Number.isNaN(percent)) {
    ctx.addIssue({ code: 'custom', continue: true, message: `invalid latency sample "${given}"` });
    return z.NEVER;
  }
  return percent;
});

/**
 * nats-server 2.11's account `msg_trace` (or `trace_dest`): the destination subject of the
 * traces a sampled traceparent asks for, or `{ dest, sampling }` with sampling 1-100 (`"50%"`).
 */
const msgTrace = z.union([
  z.string().transform((dest) => ({ dest })),
  z
    .strictObject(
      {
        dest: z.string().optional(),
        sampling: z
          .union([
            z.number().int(),
            z
              .string()
              .regex(/^\d+%?$/)
              .transform((t) => Number.parseInt(t, 10)),
          ])
          .optional(),
      },
      { error: notSupported('msg_trace key', 'accounts') },
    )
    // As nats-server: a sampling without a destination traces nothing (it warns and goes on).
    .transform((t) =>
      t.dest === undefined ? undefined : dropUndefined({ dest: t.dest, sampling: t.sampling }),
    ),
]);

/** `latency: "subject"`, or `latency { sampling, subject }`. */
const latency = z.union([
  z.string().transform((subject) => ({ subject })),
  z.strictObject(
    { subject: z.string(), sampling: sampling.optional() },
    { error: notSupported('latency key', 'accounts') },
  ),
]);

const exportEntry = z
  .strictObject(
    {
      stream: z.string().optional(),
      service: z.string().optional(),
      accounts: subjects.optional(),
      response: responseType.optional(),
      response_type: responseType.optional(),
      threshold: threshold.optional(),
      response_threshold: threshold.optional(),
      response_max_time: threshold.optional(),
      response_time: threshold.optional(),
      latency: latency.optional(),
      account_token_position: z.number().int().nonnegative().optional(),
      allow_trace: z.boolean().optional(),
    },
    { error: notSupported('export key', 'accounts') },
  )
  .transform((e, ctx): ExportOptions => {
    const type = e.response ?? e.response_type;
    const time = e.threshold ?? e.response_threshold ?? e.response_max_time ?? e.response_time;
    if ((e.stream === undefined) === (e.service === undefined)) {
      ctx.addIssue({
        code: 'custom',
        continue: true,
        message: 'an export names one stream or one service',
      });
      return z.NEVER;
    }
    const accountTokenPosition = e.account_token_position;
    if (e.stream !== undefined) {
      const misplaced =
        e.allow_trace !== undefined
          ? 'Detected allow_trace directive on non-service'
          : type !== undefined || time !== undefined || e.latency !== undefined
            ? 'a response or latency directive is for a service only'
            : undefined;
      if (misplaced !== undefined) {
        ctx.addIssue({ code: 'custom', continue: true, message: misplaced });
        return z.NEVER;
      }
      return dropUndefined({ stream: e.stream, accounts: e.accounts, accountTokenPosition });
    }
    return dropUndefined({
      service: e.service!,
      accounts: e.accounts,
      accountTokenPosition,
      responseType: type,
      responseThreshold: time,
      latency: e.latency && dropUndefined(e.latency),
      allowTrace: e.allow_trace,
    });
  });

const source = z.strictObject(
  { account: z.string(), subject: z.string() },
  { error: notSupported('import source key', 'accounts') },
);

const importEntry = z
  .strictObject(
    {
      stream: source.optional(),
      service: source.optional(),
      prefix: z.string().optional(),
      to: z.string().optional(),
      share: z.boolean().optional(),
      allow_trace: z.boolean().optional(),
    },
    { error: notSupported('import key', 'accounts') },
  )
  .transform((i, ctx): ImportOptions => {
    if ((i.stream === undefined) === (i.service === undefined)) {
      ctx.addIssue({
        code: 'custom',
        continue: true,
        message: 'an import names one stream or one service',
      });
      return z.NEVER;
    }
    if (i.stream) {
      if (i.prefix !== undefined && i.to !== undefined) {
        ctx.addIssue({
          code: 'custom',
          continue: true,
          message: "a stream import takes a 'prefix' or a 'to'",
        });
        return z.NEVER;
      }
      return dropUndefined({
        stream: i.stream,
        prefix: i.prefix,
        to: i.to,
        allowTrace: i.allow_trace,
      });
    }
    const misplaced =
      i.allow_trace !== undefined
        ? 'Detected allow_trace directive on a non-stream'
        : i.prefix !== undefined
          ? "a service import takes 'to', not 'prefix'"
          : undefined;
    if (misplaced !== undefined) {
      ctx.addIssue({ code: 'custom', continue: true, message: misplaced });
      return z.NEVER;
    }
    return dropUndefined({ service: i.service!, to: i.to, share: i.share });
  });

const size = z.union([
  z.number().int(),
  z.string().transform((text, ctx) => {
    const bytes = parseSize(text);
    if (bytes === undefined) {
      ctx.addIssue({
        code: 'custom',
        continue: true,
        message: `expected a size like 1GB, got "${text}"`,
      });
      return z.NEVER;
    }
    return bytes;
  }),
]);

const jetstream = z.union([
  z.boolean(),
  z.enum(['enabled', 'enable', 'disabled', 'disable']).transform((w) => w.startsWith('enable')),
  z
    .strictObject(
      {
        max_memory: size.optional(),
        max_mem: size.optional(),
        mem: size.optional(),
        memory: size.optional(),
        max_store: size.optional(),
        max_file: size.optional(),
        max_disk: size.optional(),
        store: size.optional(),
        disk: size.optional(),
        max_streams: z.number().int().optional(),
        streams: z.number().int().optional(),
        max_consumers: z.number().int().optional(),
        consumers: z.number().int().optional(),
      },
      { error: notSupported('account jetstream key', 'accounts') },
    )
    .transform(
      (j): AccountJetStreamOptions =>
        dropUndefined({
          maxMemory: j.max_memory ?? j.max_mem ?? j.mem ?? j.memory,
          maxFile: j.max_store ?? j.max_file ?? j.max_disk ?? j.store ?? j.disk,
          maxStreams: j.max_streams ?? j.streams,
          maxConsumers: j.max_consumers ?? j.consumers,
        }),
    ),
]);

const limits = z
  .strictObject(
    {
      max_connections: z.number().int().nonnegative().optional(),
      max_conn: z.number().int().nonnegative().optional(),
      max_subscriptions: z.number().int().nonnegative().optional(),
      max_subs: z.number().int().nonnegative().optional(),
    },
    { error: notSupported('account limits key', 'accounts') },
  )
  .transform((l) =>
    dropUndefined({
      maxConnections: l.max_connections ?? l.max_conn,
      maxSubscriptions: l.max_subscriptions ?? l.max_subs,
    }),
  );

const account = z
  .strictObject(
    {
      nkey: z.string().optional(),
      users: z.array(user).optional(),
      mappings: mappingsBlock.optional(),
      maps: mappingsBlock.optional(),
      default_permissions: permissions.optional(),
      exports: z.array(exportEntry).optional(),
      imports: z.array(importEntry).optional(),
      jetstream: jetstream.optional(),
      limits: limits.optional(),
      msg_trace: msgTrace.optional(),
      trace_dest: msgTrace.optional(),
    },
    { error: notSupported('account key', 'accounts') },
  )
  .transform(
    (a): AccountOptions =>
      dropUndefined({
        nkey: a.nkey,
        users: a.users,
        mappings: a.mappings ?? a.maps,
        defaultPermissions: a.default_permissions,
        exports: a.exports,
        imports: a.imports,
        jetstream: a.jetstream,
        limits: a.limits,
        msgTrace: a.msg_trace ?? a.trace_dest,
      }),
  );

/** `accounts { A { ... } }`, or a plain list of account names without users. */
export const accountsBlock = z.union([
  z.array(z.string()).transform((names) => Object.fromEntries(names.map((n) => [n, {}]))),
  z.record(z.string(), account),
]);
