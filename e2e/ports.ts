/**
 * Loopback ports for e2e: the built app, and two test servers standing for two origins. E2E_PORT_OFFSET shifts
 * all three, so two suites (say, a CI dry run from a clone and a developer's run) can share one machine.
 */
const offset = Number(process.env.E2E_PORT_OFFSET ?? 0) || 0;

export const E2E_PORTS = {
  app: 4173 + offset,
  originA: 4601 + offset,
  originB: 4602 + offset,
} as const;
