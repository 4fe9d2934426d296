/**
 * A Chromium driven over its own DevTools pipe with nothing but Target and Runtime commands, for timing loads as a
 * user's browser makes them. Playwright enables network instrumentation in every page and worker (each request is
 * reported with its initiator's stack): in a probe on this machine 32 `fetch()` calls in a worker took 51–74 ms to
 * issue under Playwright and 25–32 ms over this pipe, and their answers came in 270–330 ms against 87–118 ms. A load
 * of 164 requests, most of them from the parser worker, pays that on every request; a page's plain fetches (the
 * floor) pay less of it. Here no domain that observes requests is ever enabled.
 *
 * Protocol: `--remote-debugging-pipe` reads commands on fd 3 and writes answers and events on fd 4, each message
 * JSON ended by a NUL byte (https://chromedevtools.github.io/devtools-protocol/). Sessions are flat (`flatten`), so
 * a page's and its workers' commands carry their `sessionId`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';

/** How long one command may take before the bench gives up on the browser. */
const COMMAND_TIMEOUT_MS = 180_000;

interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
  sessionId?: string;
}

/** `BENCH_BROWSER_OUTPUT=1` shows the browser's own output, e.g. V8's `--trace-opt` lines under bench-ab's --flags. */
const BROWSER_OUTPUT = process.env.BENCH_BROWSER_OUTPUT === '1' ? 'inherit' : 'ignore';

export class PlainBrowser {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (result: Message['result']) => void; reject: (error: Error) => void }
  >();
  private readonly listeners: Array<(message: Message) => void> = [];
  private buffered = '';

  private constructor(
    private readonly child: ChildProcess,
    private readonly commands: Writable,
    answers: Readable,
    private readonly profileDir: string,
  ) {
    answers.setEncoding('utf8');
    answers.on('data', (chunk: string) => this.take(chunk));
  }

  static async launch(executable: string, args: readonly string[]): Promise<PlainBrowser> {
    const profileDir = mkdtempSync(path.join(os.tmpdir(), 'st-lens-plain-browser-'));
    const child = spawn(
      executable,
      [...args, '--headless', '--remote-debugging-pipe', `--user-data-dir=${profileDir}`, 'about:blank'],
      { stdio: ['ignore', BROWSER_OUTPUT, BROWSER_OUTPUT, 'pipe', 'pipe'] },
    );
    const browser = new PlainBrowser(child, child.stdio[3] as Writable, child.stdio[4] as Readable, profileDir);
    // The first answer also says the browser is up.
    await browser.send('Browser.getVersion');
    return browser;
  }

  /** The product and version, as Playwright's `browser.version()` prints it. */
  async version(): Promise<string> {
    const result = await this.send('Browser.getVersion');
    return String(result?.product ?? 'Chromium');
  }

  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Message['result']> {
    const id = this.nextId++;
    const message: Message = { id, method, params, ...(sessionId ? { sessionId } : {}) };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method}: no answer from the browser in ${COMMAND_TIMEOUT_MS} ms`));
      }, COMMAND_TIMEOUT_MS);
      this.pending.set(id, {
        resolve: (result) => {
          clearTimeout(timer);
          resolve(result);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.commands.write(`${JSON.stringify(message)}\0`);
    });
  }

  /** A page in a fresh browser context (no connection, cache or cookie shared with earlier pages), at `url`. */
  async newPage(url: string, options: { bypassCSP?: boolean } = {}): Promise<PlainPage> {
    const context = await this.send('Target.createBrowserContext', { disposeOnDetach: true });
    const browserContextId = String(context?.browserContextId);
    const target = await this.send('Target.createTarget', { url: 'about:blank', browserContextId });
    const targetId = String(target?.targetId);
    const attached = await this.send('Target.attachToTarget', { targetId, flatten: true });
    const page = new PlainPage(this, String(attached?.sessionId), browserContextId);
    await page.attachWorkers();
    if (options.bypassCSP) {
      // For a peer library injected into the app's page, which its CSP would refuse.
      await this.send('Page.setBypassCSP', { enabled: true }, page.sessionId);
    }
    await page.navigate(url);
    return page;
  }

  onMessage(listener: (message: Message) => void): () => void {
    this.listeners.push(listener);
    return () => this.listeners.splice(this.listeners.indexOf(listener), 1);
  }

  async close(): Promise<void> {
    try {
      await Promise.race([this.send('Browser.close'), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    } catch {
      // the browser may exit before answering
    }
    // A command the browser never answered must not keep this process alive for its timeout.
    for (const waiting of [...this.pending.values()]) {
      waiting.reject(new Error('the browser was closed'));
    }
    this.pending.clear();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGKILL');
      await exited;
    }
    // Chromium's helper processes may still be writing to the profile for a moment after the browser exits. A
    // profile left in the temp folder must not fail a bench whose figures are all printed by now.
    try {
      rmSync(this.profileDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 });
    } catch (error) {
      console.warn(`(left the browser profile ${this.profileDir}: ${error instanceof Error ? error.message : error})`);
    }
  }

  private take(chunk: string): void {
    this.buffered += chunk;
    for (let end = this.buffered.indexOf('\0'); end >= 0; end = this.buffered.indexOf('\0')) {
      const message = JSON.parse(this.buffered.slice(0, end)) as Message;
      this.buffered = this.buffered.slice(end + 1);
      if (message.id !== undefined) {
        const waiting = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error) {
          waiting?.reject(new Error(message.error.message));
        } else {
          waiting?.resolve(message.result);
        }
        continue;
      }
      for (const listener of [...this.listeners]) {
        listener(message);
      }
    }
  }
}

export class PlainPage {
  private readonly workerSessions: string[] = [];
  private stopListening: (() => void) | null = null;

  constructor(
    private readonly browser: PlainBrowser,
    readonly sessionId: string,
    private readonly browserContextId: string,
  ) {}

  /** Auto-attaches to the page's dedicated workers (only Runtime is ever used in them), so their marks can be read. */
  async attachWorkers(): Promise<void> {
    this.stopListening = this.browser.onMessage((message) => {
      const info = message.params?.targetInfo as { type?: string } | undefined;
      if (
        message.method === 'Target.attachedToTarget' &&
        message.sessionId === this.sessionId &&
        info?.type === 'worker'
      ) {
        this.workerSessions.push(String(message.params?.sessionId));
      }
    });
    await this.browser.send(
      'Target.setAutoAttach',
      { autoAttach: true, waitForDebuggerOnStart: false, flatten: true },
      this.sessionId,
    );
  }

  async navigate(url: string): Promise<void> {
    await this.browser.send('Page.enable', {}, this.sessionId);
    const loaded = new Promise<void>((resolve) => {
      const stop = this.browser.onMessage((message) => {
        if (message.method === 'Page.loadEventFired' && message.sessionId === this.sessionId) {
          stop();
          resolve();
        }
      });
    });
    await this.browser.send('Page.navigate', { url }, this.sessionId);
    await loaded;
    // Page events are not needed past the load; nothing else stays enabled.
    await this.browser.send('Page.disable', {}, this.sessionId);
  }

  /** Evaluates an expression in the page (awaiting a promise it returns) and returns its JSON value. */
  evaluate<T>(expression: string): Promise<T> {
    return evaluateIn<T>(this.browser, this.sessionId, expression);
  }

  /** The same expression in every worker of the page attached so far. */
  async evaluateInWorkers<T>(expression: string): Promise<T[]> {
    return Promise.all(this.workerSessions.map((sessionId) => evaluateIn<T>(this.browser, sessionId, expression)));
  }

  async close(): Promise<void> {
    this.stopListening?.();
    await this.browser.send('Target.disposeBrowserContext', { browserContextId: this.browserContextId });
  }
}

async function evaluateIn<T>(browser: PlainBrowser, sessionId: string, expression: string): Promise<T> {
  const answer = await browser.send(
    'Runtime.evaluate',
    { expression, awaitPromise: true, returnByValue: true },
    sessionId,
  );
  const details = answer?.exceptionDetails as { exception?: { description?: string }; text?: string } | undefined;
  if (details) {
    throw new Error(details.exception?.description ?? details.text ?? 'evaluation failed');
  }
  return (answer?.result as { value: T }).value;
}
