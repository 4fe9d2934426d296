/**
 * The single app store, built from typed slices (zustand slices pattern). Actions talk to the worker client
 * (src/worker/client.ts) and nothing else of io/ or the worker; the one fetch is a bundled sample (an app asset),
 * in openSample. Components call these actions and never the worker or fetch themselves.
 */
import { create } from 'zustand';
import { createCompareSlice, type CompareSlice } from './compare-slice';
import { createLoadSlice, type LoadSlice } from './load-slice';
import { createSessionSlice, type SessionSlice } from './session-slice';
import { createValuesSlice, type ValuesSlice } from './values-slice';
import { createViewSlice, type ViewSlice } from './view-slice';

export type AppState = LoadSlice & ViewSlice & SessionSlice & CompareSlice & ValuesSlice;

export const useAppStore = create<AppState>()((...args) => ({
  ...createLoadSlice(...args),
  ...createViewSlice(...args),
  ...createSessionSlice(...args),
  ...createCompareSlice(...args),
  ...createValuesSlice(...args),
}));
