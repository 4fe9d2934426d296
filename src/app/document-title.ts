/** The browser tab says which file is open, so a user with several tabs of the app can tell them apart. */
import { useEffect } from 'react';

export const APP_TITLE = 'Safetensors Lens';

/** `model.safetensors — Safetensors Lens`, or the app's name alone when nothing is open. */
export function documentTitle(sourceName: string | null): string {
  const name = sourceName?.trim();
  return name ? `${name} — ${APP_TITLE}` : APP_TITLE;
}

/** Keeps `document.title` on the open source's name; back to the app's name when it closes or fails. */
export function useDocumentTitle(sourceName: string | null): void {
  useEffect(() => {
    document.title = documentTitle(sourceName);
  }, [sourceName]);
}
