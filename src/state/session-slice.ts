/**
 * Session settings: the optional Hugging Face access token and messages about the share link.
 * The token lives in memory; app/token-storage.ts mirrors it to sessionStorage only when the user opts in.
 */
import type { StateCreator } from 'zustand';
import type { AppState } from './store';

export interface SessionSlice {
  token: string;
  rememberToken: boolean;
  shareWarnings: string[];
  setToken: (token: string) => void;
  setRememberToken: (remember: boolean) => void;
  setShareWarnings: (warnings: string[]) => void;
}

export const createSessionSlice: StateCreator<AppState, [], [], SessionSlice> = (set) => ({
  token: '',
  rememberToken: false,
  shareWarnings: [],
  setToken: (token) => set({ token: token.trim() }),
  setRememberToken: (remember) => set({ rememberToken: remember }),
  setShareWarnings: (warnings) => set({ shareWarnings: warnings }),
});
