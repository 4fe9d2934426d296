/**
 * Runs `run` once the next frame has been painted: a task queued from that frame's animation callback starts after
 * the frame is drawn. Where nothing paints (tests in Node), `run` is never called.
 */
export function afterNextPaint(run: () => void): void {
  if (typeof requestAnimationFrame !== 'function') {
    return;
  }
  requestAnimationFrame(() => setTimeout(run, 0));
}

/** Settles in a task of its own: what follows runs after the browser had its turn (input, paint, other messages). */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** The Prioritized Task Scheduling API where the runtime has it (Chromium's pages and workers). */
interface TaskScheduler {
  postTask(
    callback: () => void,
    options?: { priority?: 'user-blocking' | 'user-visible' | 'background' },
  ): Promise<void>;
}

let pausePort: { port: MessagePort; waiting: Array<() => void> } | null = null;

/** Node's check-phase callback; browsers have none. */
type SetImmediate = (callback: () => void) => unknown;

/**
 * Settles in a task of its own, queued behind the messages already sent to this thread, and without the 4 ms a
 * timer nested five deep is held to (HTML's timer rules): for work that pauses every few milliseconds. A
 * `user-visible` task where the runtime schedules them (about 10 µs a pause in a worker; `scheduler.yield()` would
 * resume ahead of the page's messages, which is what a pause is for). In Node, `setImmediate`: a MessagePort there
 * delivers up to 1,000 messages in one turn of the event loop, so pauses taken from inside one would hold every
 * timer back for 1,000 pauses. Else a message on one shared channel (a channel per pause cost 48 µs, more when the
 * IO thread is busy).
 */
export function nextQueuedTask(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: TaskScheduler }).scheduler;
  if (scheduler?.postTask) {
    return scheduler.postTask(() => undefined, { priority: 'user-visible' });
  }
  const setImmediateOf = (globalThis as { setImmediate?: SetImmediate }).setImmediate;
  if (typeof setImmediateOf === 'function') {
    return new Promise((resolve) => setImmediateOf(resolve));
  }
  if (pausePort === null) {
    const channel = new MessageChannel();
    const waiting: Array<() => void> = [];
    channel.port1.onmessage = () => waiting.shift()?.();
    // Unref'd where the runtime has it (Node), so a channel kept for later pauses never holds a process open.
    (channel.port1 as MessagePort & { unref?: () => void }).unref?.();
    pausePort = { port: channel.port2, waiting };
  }
  const { port, waiting } = pausePort;
  return new Promise((resolve) => {
    waiting.push(resolve);
    port.postMessage(null);
  });
}
