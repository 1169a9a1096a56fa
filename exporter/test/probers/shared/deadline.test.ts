import { beforeDeadline, DeadlineExceeded, deadlineIn, ProbeInterrupted } from '../../../src/probers/shared/deadline';

const never = new Promise<never>(() => undefined);

describe('probe deadlines', () => {
  it('fire at their time and name the phase they cut', async () => {
    const deadline = deadlineIn(30);
    await expect(beforeDeadline(deadline, 'transfer', never)).rejects.toThrow(new DeadlineExceeded('transfer'));
    deadline.cancel();
  });

  it('longer than a Node timer can wait (2^31-1 ms) do not fire at once', async () => {
    // 3,000,000 s: a scrape timeout header a module without timeout takes as it comes.
    const deadline = deadlineIn(3_000_000_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(deadline.signal.aborted).toBe(false);
    expect(deadline.at - Date.now()).toBeGreaterThan(2_999_000_000);
    deadline.cancel();
  });

  it('stop the probe when its scrape goes away, every waiting phase rejecting with the reason', async () => {
    const scrape = new AbortController();
    const deadline = deadlineIn(60_000, scrape.signal);
    const waiting = beforeDeadline(deadline, 'processing', never);
    scrape.abort();
    await expect(waiting).rejects.toThrow(ProbeInterrupted);
    await expect(beforeDeadline(deadline, 'transfer', never)).rejects.toThrow('the scrape went away before the probe ended');
    deadline.cancel();
  });

  it('stop at once when the scrape went away before the probe began', () => {
    const scrape = new AbortController();
    scrape.abort();
    const deadline = deadlineIn(60_000, scrape.signal);
    expect(deadline.signal.aborted).toBe(true);
    deadline.cancel();
  });

  it('once cancelled, no longer listen to the scrape', () => {
    const scrape = new AbortController();
    const deadline = deadlineIn(60_000, scrape.signal);
    deadline.cancel();
    scrape.abort();
    expect(deadline.signal.aborted).toBe(false);
  });
});
