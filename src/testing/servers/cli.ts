/**
 * Runs the test servers standalone (for Playwright's `webServer`, or by hand):
 *
 *   npx tsx src/testing/servers/cli.ts --root <dir> [--port-a 4601] [--port-b 4602] [--host 127.0.0.1]
 *
 * Prints one JSON line `{"originA": …, "originB": …}` once both servers listen; stops on SIGINT/SIGTERM.
 * Playwright can wait on `http://127.0.0.1:<port-a>/__log`.
 */
import { existsSync, statSync } from 'node:fs';
import { e2eRoutes } from './e2e-routes';
import { startTestServers } from './range-server';

function parseArgs(argv: string[]): { root: string; portA?: number; portB?: number; host?: string } {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) {
      throw new Error(`Unexpected argument “${arg}”`);
    }
    const [key, inline] = arg.slice(2).split('=', 2);
    const value = inline ?? argv[++i];
    if (value === undefined) {
      throw new Error(`Missing value for --${key}`);
    }
    values.set(key, value);
  }
  const port = (key: string): number | undefined => {
    const raw = values.get(key);
    if (raw === undefined) {
      return undefined;
    }
    const parsed = Number(raw);
    if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) {
      throw new Error(`--${key} must be a port number, got “${raw}”`);
    }
    return parsed;
  };
  const root = values.get('root');
  if (root === undefined) {
    throw new Error('--root <fixtures folder> is required');
  }
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    throw new Error(`--root ${root} is not a folder`);
  }
  return { root, portA: port('port-a'), portB: port('port-b'), host: values.get('host') };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const servers = await startTestServers({ ...args, extraRoutes: e2eRoutes });
  console.log(JSON.stringify({ originA: servers.originA, originB: servers.originB }));
  const stop = (): void => {
    void servers.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
