import { join } from 'node:path';
import { slipstreamServerBin } from '@slipstream/test-servers';
import { type FullDiskRun, mountSmallDisk, runFullDisk, unmount } from '../disk-full/fill.js';
import type { Figure, Section, SectionContext } from '../section.js';

/** JetStream's insufficient resources error, which a full disk must answer publishes with. */
const INSUFFICIENT_RESOURCES = 10023;

/** Disk full: the store on a small tmpfs, filled until refused, then given space again. */
export const diskFull: Section = {
  name: 'disk-full',
  title: 'Disk full',
  share: 1,
  async run(context: SectionContext) {
    const mountPoint = join(context.workDir, 'disk');
    mountSmallDisk(mountPoint);
    try {
      const ours = await runFullDisk({ name: 'slipstream', bin: slipstreamServerBin }, mountPoint);
      context.log(JSON.stringify(ours));
      const nats = await runFullDisk({ name: 'nats-server 2.9.10' }, mountPoint);
      context.log(JSON.stringify(nats));
      return { figures: figures(ours, nats), details: DETAILS };
    } finally {
      unmount(mountPoint);
    }
  },
};

export function figures(ours: FullDiskRun, nats?: FullDiskRun): Figure[] {
  const trials = '8 MiB tmpfs, 2 MiB ballast, 4 KiB messages';
  const yes = (value: boolean) => (value ? 'yes' : 'no');
  return [
    {
      check: 'messages acknowledged before the disk was full',
      trials,
      ours: `${ours.acknowledged}`,
      reference: nats && `${nats.acknowledged}`,
    },
    {
      check: `first refused publish answered with ${INSUFFICIENT_RESOURCES} (insufficient resources)`,
      trials,
      ours: ours.refusal,
      reference: nats?.refusal,
      holds: ours.refusalCode === INSUFFICIENT_RESOURCES,
    },
    {
      check: 'acknowledged messages lost (read back after a restart)',
      trials,
      ours: `${ours.lost}`,
      reference: nats && `${nats.lost}`,
      holds: ours.lost === 0,
    },
    {
      check: 'core NATS request answered while full',
      trials,
      ours: yes(ours.coreServed),
      reference: nats && yes(nats.coreServed),
      holds: ours.coreServed,
    },
    {
      check: 'publishing resumed once space returned',
      trials,
      ours: yes(ours.resumed),
      reference: nats && yes(nats.resumed),
      holds: ours.resumed,
    },
  ];
}

const DETAILS = [
  'Each server in turn gets its store on an 8 MiB tmpfs beside 2 MiB of ballast, creates a file',
  'stream and publishes 4 KiB messages one at a time, each awaiting its PubAck, until a publish is',
  'refused. Still full, a core NATS request must be answered; then the ballast is removed and a',
  'publish must be acknowledged again; then the server is restarted and every acknowledged message',
  'read back. The same steps run as a test in CI (packages/server/test/jetstream-full-disk.test.ts,',
  'a 3 MiB tmpfs). Mounting needs root.',
].join('\n');
