import { slipstreamServerBin } from '@slipstream/test-servers';
import { type FuzzRun, runFuzz } from '../hostile/fuzz-run.js';
import { UNFINISHED_CONNECTIONS, unfinishedFrameGrowthMiB } from '../hostile/unfinished-frames.js';
import type { Figure, Section, SectionContext } from '../section.js';

/**
 * Hostile input: seeded protocol fuzzing over TCP and WebSocket and JSON fuzzing of $JS.API and
 * the KV and object store conventions against one slipstream-server process, for the section's
 * whole budget. HOSTILE_SEED replays a run.
 */
export const hostileInput: Section = {
  name: 'hostile-input',
  title: 'Hostile input',
  share: 1,
  async run(context: SectionContext) {
    const firstSeed = Number(process.env.HOSTILE_SEED ?? Date.now() % 1_000_000_000);
    context.log(`hostile input from seed ${firstSeed}`);
    const run = await runFuzz({ durationMs: context.budgetMs * 0.8, firstSeed, log: context.log });
    context.log(describeFuzzRun(run));
    const unfinished = {
      ours: await unfinishedFrameGrowthMiB(slipstreamServerBin),
      nats: await unfinishedFrameGrowthMiB(),
    };
    context.log(`unfinished WebSocket frames: ${JSON.stringify(unfinished)}`);
    return {
      figures: [...fuzzFigures(run), unfinishedFrameFigure(unfinished.ours, unfinished.nats)],
      details: details(run),
    };
  },
};

export function describeFuzzRun(run: FuzzRun): string {
  return JSON.stringify({ ...run, exitOutput: undefined });
}

/** RSS may grow with what the fuzz stored (streams, 1 MiB values), but not without bound. */
const RSS_GROWTH_LIMIT_MIB = 256;

export function fuzzFigures(run: FuzzRun): Figure[] {
  const p = run.protocolCases;
  const cases = `${p.tcp} TCP + ${p.websocket} WebSocket + ${p.tls} TLS + ${p['tls-handshake']} TLS-handshake protocol cases, ${run.apiCases} requests, seeds from ${run.firstSeed}`;
  const w = run.watchdog;
  return [
    {
      check: 'server exits under fuzzing',
      trials: cases,
      ours: run.crashSeed === undefined ? '0' : `1 (seed ${run.crashSeed})`,
      holds: run.crashSeed === undefined,
    },
    {
      check: 'requests without an answer ($JS.API: a JSON reply; KV/object: any reply)',
      trials: `${run.apiCases} requests (${run.refusedByClient} not sent: the client refused them)`,
      ours: `${run.unanswered.length}${run.unanswered.length ? ` (seeds ${run.unanswered.slice(0, 5).join(', ')})` : ''}`,
      holds: run.unanswered.length === 0,
    },
    {
      check: 'files created outside the store directory',
      trials: cases,
      ours: `${run.outsideStore.length}${run.outsideStore.length ? ` (${run.outsideStore.slice(0, 3).join(', ')})` : ''}`,
      holds: run.outsideStore.length === 0,
    },
    {
      check: "a well-behaved client's PONGs late (> 2 s) or missing",
      trials: `${w.pings} pings, slowest ${w.slowestPongMs} ms`,
      ours: `${w.pings - w.pongsInTime}`,
      holds: w.pings > 0 && w.pongsInTime === w.pings,
    },
    {
      check: "a well-behaved client's own messages lost",
      trials: `${w.published} published`,
      ours: `${w.published - Math.min(w.received, w.published)}`,
      holds: w.received >= w.published,
    },
    {
      check: `server RSS: start → peak → end (MiB; growth limit ${RSS_GROWTH_LIMIT_MIB})`,
      trials: cases,
      ours: `${run.rssStartMiB} → ${run.rssPeakMiB} → ${run.rssEndMiB}`,
      holds: run.rssPeakMiB - run.rssStartMiB <= RSS_GROWTH_LIMIT_MIB,
    },
  ];
}

/**
 * What a few hostile WebSocket clients can make a server hold with frames they never finish;
 * with frames parsed as they arrive it is the PONGs on their way out, not the frames.
 */
export function unfinishedFrameFigure(oursMiB: number, natsMiB?: number): Figure {
  return {
    check: 'RSS held for unfinished WebSocket frames (64 MiB sent of a 90 MiB frame of PINGs)',
    trials: `${UNFINISHED_CONNECTIONS} connections`,
    ours: `${oursMiB} MiB`,
    reference: natsMiB === undefined ? undefined : `${natsMiB} MiB`,
  };
}

function details(run: FuzzRun): string {
  return [
    'One slipstream-server process (JetStream with a file store, TLS on the client port with',
    '`allow_non_tls`, a plain WebSocket listener) takes',
    'seeded hostile input for the whole budget, on 4 protocol workers and 4 API workers at once.',
    'A protocol case (`src/hostile/protocol-cases.ts`) is a connection writing valid frames',
    '(CONNECT, PUB, HPUB, SUB, UNSUB, PING) with bytes flipped, overwritten, inserted, deleted or',
    'numbers made enormous, frames wrong on purpose (absurd and negative sizes, 70 KB subjects,',
    'deeply nested CONNECT JSON, control bytes) and random bytes, all split at random points into',
    'separate writes; by seed modulo 4 they go over plain TCP, over WebSocket (one masked binary',
    'frame per write), over TLS (after INFO), or in place of the TLS handshake (the first byte a',
    "handshake record's, the rest the case). An API case (`src/hostile/api-cases.ts`) is a valid `$JS.API` request (stream and",
    'consumer create/update/info/delete/purge/list, message get/delete, snapshot, restore,',
    'stepdown, peer remove) with one field or the whole body replaced by a wrong type, 1e999,',
    '2^64, deep nesting (100,000 levels), a name with `../` or an absolute path, NUL and control',
    'bytes, or a string of nearly 1 MiB, on names that are valid or hostile subject tokens; or a',
    'publish to the KV bucket or object store with hostile keys, bodies and headers (KV-Operation,',
    'Nats-Rollup, expected sequences, a 60 KB Nats-Msg-Id). A `$JS.API` request must get a JSON',
    'reply within 5 s; a KV/object publish any reply (no responders included). Pull requests',
    '(`CONSUMER.MSG.NEXT`) and direct gets are left out: waiting without a reply is their contract.',
    'A watchdog client publishes to itself and pings every 100 ms throughout. Files: nothing may',
    'appear in the server directory outside the store, nor anything carrying the fuzz mark in the',
    'temp directory, its parent or /.',
    '',
    'Unfinished WebSocket frames: 4 connections each send CONNECT, then 64 MiB of a binary frame',
    'that claims 90 MiB, full of PINGs, and the RSS growth is read. Both servers parse a frame as',
    'its bytes arrive, every PING answered before the frame ends (ours since December 2026, in',
    '`websocket-frame-reader.ts`; the `ws` package it replaced held each message whole until its',
    'last byte: 262 MiB for these 4 connections, nats-server 6), so what remains is the PONGs on',
    'their way out and the heap of parsing, not the frames: V8 grows its young generation under',
    'this allocation rate (the server run with `--max-semi-space-size=1` grows 9 MiB, not 29).',
    '',
    `Replay: \`HOSTILE_SEED=${run.firstSeed} node tooling/reliability/dist/main.js --budget … --sections hostile-input\`.`,
    'nats-server is not run through the fuzz (its answers differ by design).',
  ].join('\n');
}
