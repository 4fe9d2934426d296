export interface FoundChromium {
  path: string;
  source: 'CHROMIUM_PATH' | 'debian' | 'playwright';
}
export function findChromium(): FoundChromium | null;
export function ensureChromium(): FoundChromium | null;
export const CHROMIUM_ARGS: string[];
