/**
 * The counter client (`counterFromStream`, ADR-49) and the `schedule` / `cancelSchedule` publish
 * options (nats.js v3 names, ADR-51) against our server, which has nats-server 2.12's counters
 * and 2.12/2.14's schedules (nats-server 2.9.10 has neither).
 */
import { describe, expect, it } from 'vitest';
import { counterFromStream, JetStreamError, PubHeaders, scheduleSpecToHeader } from '../src/mod.js';
import { expectApiError } from './api-errors.js';
import { type OfficialJetStream, useOfficialJetStream } from './official.js';
import { ourServers, uniqueStream, useJetStreamClients } from './servers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('scheduleSpecToHeader', () => {
  it('writes each specification as its Nats-Schedule value', () => {
    const at = new Date('2030-01-02T03:04:05.000Z');
    expect(scheduleSpecToHeader(at)).toBe('@at 2030-01-02T03:04:05.000Z');
    expect(scheduleSpecToHeader({ at })).toBe('@at 2030-01-02T03:04:05.000Z');
    expect(scheduleSpecToHeader({ at: '2030-01-02T03:04:05Z' })).toBe('@at 2030-01-02T03:04:05Z');
    expect(scheduleSpecToHeader({ every: '5m' })).toBe('@every 5m');
    expect(scheduleSpecToHeader({ cron: '0 30 9 * * mon-fri' })).toBe('0 30 9 * * mon-fri');
    expect(scheduleSpecToHeader({ predefined: '@hourly' })).toBe('@hourly');
    expect(scheduleSpecToHeader('@every 1s')).toBe('@every 1s');
    expect(() => scheduleSpecToHeader({ every: '500ms' })).toThrow(JetStreamError);
    expect(() => scheduleSpecToHeader({ every: 'soon' })).toThrow(JetStreamError);
  });
});

describe.each(ourServers)('counters and schedules against $name', (kind) => {
  const { server, clients } = useJetStreamClients(kind);
  let official: OfficialJetStream;
  useOfficialJetStream(server, (opened) => {
    official = opened;
  });

  it('adds to counters of any size and reads them back', async () => {
    const name = uniqueStream('C');
    await clients.jsm.streams.add({
      name,
      subjects: [`${name}.>`],
      allow_msg_counter: true,
      allow_direct: true,
    });
    const counter = await counterFromStream(clients.js, name);
    expect(await counter.add(`${name}.hits`, 5)).toBe(5n);
    expect(await counter.add(`${name}.hits`, -2)).toBe(3n);
    expect(await counter.add(`${name}.hits`, 2n ** 70n)).toBe(2n ** 70n + 3n);
    expect(await counter.get(`${name}.hits`)).toEqual({
      subject: `${name}.hits`,
      value: 2n ** 70n + 3n,
      sources: new Map(),
      increment: 2n ** 70n,
    });
    await expect(counter.get(`${name}.none`)).rejects.toThrow(JetStreamError);
    await counter.add(`${name}.misses`, 2);
    const all: [string, bigint][] = [];
    for await (const entry of counter.getMultiple([`${name}.*`, `${name}.hits`])) {
      all.push([entry.subject, entry.value]);
    }
    expect(all).toEqual([
      [`${name}.hits`, 2n ** 70n + 3n],
      [`${name}.misses`, 2n],
    ]);
    await expect(counter.add(`${name}.hits`, 1.5)).rejects.toThrow(JetStreamError);
    // The server's refusal of a message without an increment (10169).
    await expectApiError(clients.js.publish(`${name}.hits`, 'x'), 400, 10169);
  });

  it('refuses a stream that does not count', async () => {
    const name = uniqueStream('P');
    await clients.jsm.streams.add({ name, subjects: [`${name}.>`], allow_direct: true });
    await expect(counterFromStream(clients.js, name)).rejects.toThrow(
      `stream '${name}' does not allow message counters`,
    );
  });

  it('publishes a schedule that fires on its target, and cancels another', async () => {
    const name = uniqueStream('S');
    await clients.jsm.streams.add({
      name,
      subjects: [`${name}.>`],
      allow_msg_schedules: true,
      allow_direct: true,
    });
    const ack = await clients.js.publish(`${name}.schedule`, 'later', {
      schedule: {
        specification: new Date(Date.now() + 300),
        target: `${name}.target`,
      },
    });
    expect(ack.seq).toBe(1);
    const stored = await clients.jsm.streams.getMessage(name, { seq: 1 });
    expect(stored!.header.get(PubHeaders.Schedule)).toMatch(/^@at /);
    expect(stored!.header.get(PubHeaders.ScheduleTarget)).toBe(`${name}.target`);

    await clients.js.publish(`${name}.other`, '', {
      schedule: { specification: { every: '1h' }, target: `${name}.target` },
    });
    await clients.js.publish(`${name}.cancel`, '', {
      cancelSchedule: { scheduleSubject: `${name}.other` },
    });
    await expect(
      clients.js.publish(`${name}.x`, '', {
        schedule: { specification: '@hourly', target: `${name}.target` },
        cancelSchedule: { scheduleSubject: `${name}.other` },
      }),
    ).rejects.toThrow('schedule and cancelSchedule are mutually exclusive');

    let fired = await clients.jsm.streams.getMessage(name, { last_by_subj: `${name}.target` });
    for (let i = 0; i < 40 && !fired; i++) {
      await sleep(50);
      fired = await clients.jsm.streams.getMessage(name, { last_by_subj: `${name}.target` });
    }
    expect(fired!.string()).toBe('later');
    expect(fired!.header.get(PubHeaders.Scheduler)).toBe(`${name}.schedule`);
    expect(fired!.header.get(PubHeaders.ScheduleNext)).toBe('purge');
    // The cancellation purged the hourly schedule.
    const other = await clients.jsm.streams.getMessage(name, { last_by_subj: `${name}.other` });
    expect(other).toBeNull();
  });

  it("takes the official client's schedule option (@nats-io/jetstream 3.4)", async () => {
    const name = uniqueStream('O');
    await clients.jsm.streams.add({ name, subjects: [`${name}.>`], allow_msg_schedules: true });
    await official.js.publish(`${name}.schedule`, 'from nats.js', {
      schedule: { specification: new Date(Date.now() + 200), target: `${name}.target` },
    });
    let fired = await clients.jsm.streams.getMessage(name, { last_by_subj: `${name}.target` });
    for (let i = 0; i < 40 && !fired; i++) {
      await sleep(50);
      fired = await clients.jsm.streams.getMessage(name, { last_by_subj: `${name}.target` });
    }
    expect(fired!.string()).toBe('from nats.js');
    expect(fired!.header.get(PubHeaders.ScheduleNext)).toBe('purge');
  });
});
