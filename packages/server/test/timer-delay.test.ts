import { describe, expect, it } from 'vitest';
import { afterWait, deadline, timerDelay } from '../src/timer-delay.js';

describe('timerDelay', () => {
  it('keeps a wait Node can honour, and makes a past deadline fire at once', () => {
    expect(timerDelay(1500)).toBe(1500);
    expect(timerDelay(-20)).toBe(0);
  });

  it('caps a wait of more than 24.8 days, which Node would otherwise run after 1 ms', async () => {
    const thirtyDays = 30 * 24 * 3600 * 1000;
    expect(timerDelay(thirtyDays)).toBe(2 ** 31 - 1);
    let fired = false;
    const timer = setTimeout(() => {
      fired = true;
    }, timerDelay(thirtyDays));
    await new Promise((resolve) => setTimeout(resolve, 20));
    clearTimeout(timer);
    expect(fired).toBe(false);
  });
});

describe('afterWait', () => {
  it('runs a wait already over on a later turn, as setTimeout does', async () => {
    let ran = false;
    const done = new Promise<void>((resolve) =>
      afterWait(
        0,
        () => {
          ran = true;
          resolve();
        },
        () => {},
      ),
    );
    expect(ran).toBe(false);
    await done;
    expect(ran).toBe(true);
  });

  it('runs once the wait is over', async () => {
    const started = Date.now();
    const ran = await new Promise<number>((resolve) => {
      afterWait(
        50,
        () => resolve(Date.now()),
        () => {},
      );
    });
    expect(ran - started).toBeGreaterThanOrEqual(49);
  });

  it('reaches a wait of 30 days in steps Node honours, one timer at a time', async () => {
    const timers: NodeJS.Timeout[] = [];
    let ran = false;
    afterWait(
      30 * 24 * 3600 * 1000,
      () => {
        ran = true;
      },
      (timer) => timers.push(timer),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ran).toBe(false);
    expect(timers).toHaveLength(1);
    clearTimeout(timers[0]);
  });
});

describe('deadline', () => {
  it('runs after the wait unless cancelled first', async () => {
    let ran = 0;
    deadline(5, () => ran++);
    const cancel = deadline(5, () => ran++);
    cancel();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(ran).toBe(1);
  });
});
