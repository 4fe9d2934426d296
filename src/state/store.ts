/**
 * The single app store, built from typed slices (zustand slices pattern). Actions talk to the worker client only;
 * no slice does IO itself.
 */
import { create } from 'zustand';
import { createCompareSlice, type CompareSlice } from './compare-slice';
import { createLoadSlice, type LoadSlice } from './load-slice';
import { createSessionSlice, type SessionSlice } from './session-slice';
import { createViewSlice, type ViewSlice } from './view-slice';

export type AppState = LoadSlice & ViewSlice & SessionSlice & CompareSlice;

export const useAppStore = create<AppState>()((...args) => ({
  ...createLoadSlice(...args),
  ...createViewSlice(...args),
  ...createSessionSlice(...args),
  ...createCompareSlice(...args),
}));
