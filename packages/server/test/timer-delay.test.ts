import { describe, expect, it } from 'vitest';
import { timerDelay } from '../src/timer-delay.js';

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
