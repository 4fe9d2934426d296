/**
 * Set-up shared by the unit tests that talk to the HTTP test servers (src/testing/servers/): one fixture folder and
 * one pair of servers per test file, a clean request log and no leftover faults before each test, and nothing left
 * running after the file.
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { SourceError } from '../core/errors';
import { createFixtureDir, type FixtureDir } from './fixture-dir';
import { e2eRoutes } from './servers/e2e-routes';
import { startTestServers, type TestServers } from './servers/range-server';

/**
 * Before the file's tests: a fresh fixture folder, handed to `start`, which writes its files and starts the servers.
 * After each test: the servers' log and faults are cleared, then `reset` runs (the file's own counters). After all:
 * the servers stop and the folder is removed.
 */
export function setUpTestServers(start: (fixtures: FixtureDir) => Promise<TestServers>, reset?: () => void): void {
  let fixtures: FixtureDir | undefined;
  let servers: TestServers | undefined;
  beforeAll(async () => {
    fixtures = await createFixtureDir();
    servers = await start(fixtures);
  });
  afterAll(async () => {
    await servers?.close();
    await fixtures?.remove();
  });
  afterEach(() => {
    servers?.log.clear();
    servers?.resetFaults();
    reset?.();
  });
}

/**
 * setUpTestServers for the files that start the servers with the e2e routes (the fake Hub, tagged shard paths) and
 * write their fixtures in their own tests: the folder and the servers, on the returned object once started.
 */
export function setUpRouteServers(): { readonly fixtures: FixtureDir; readonly servers: TestServers } {
  const live = {} as { fixtures: FixtureDir; servers: TestServers };
  setUpTestServers(async (dir) => {
    live.fixtures = dir;
    live.servers = await startTestServers({ root: dir.root, extraRoutes: e2eRoutes });
    return live.servers;
  });
  return live;
}

/** The SourceError a promise rejects with; the test fails if it resolves or rejects with anything else. */
export async function sourceErrorOf(promise: Promise<unknown>): Promise<SourceError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SourceError);
  return error as SourceError;
}
