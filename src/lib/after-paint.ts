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

/**
 * Settles in a task of its own, queued behind the messages already sent to this thread, and without the 4 ms a
 * timer nested five deep is held to (HTML's timer rules): for work that pauses every few milliseconds.
 */
export function nextMessageTask(): Promise<void> {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
}
