/** Fixed loopback ports for e2e: the built app, and two test servers standing for two origins. */
export const E2E_PORTS = {
  app: 4173,
  originA: 4601,
  originB: 4602,
} as const;
