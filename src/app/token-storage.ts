/**
 * Mirrors the access token to sessionStorage only when the user opted in ("remember for this tab").
 * Never localStorage: the token must not outlive the tab.
 */
import { useAppStore } from '../state/store';

const TOKEN_KEY = 'safetensors-lens:hf-token';

export function installTokenStorage(): () => void {
  try {
    const saved = sessionStorage.getItem(TOKEN_KEY);
    if (saved) {
      useAppStore.setState({ token: saved, rememberToken: true });
    }
  } catch {
    // Storage can be disabled (privacy modes); the token then simply lives in memory.
  }
  return useAppStore.subscribe((state, previous) => {
    if (state.token === previous.token && state.rememberToken === previous.rememberToken) {
      return;
    }
    try {
      if (state.rememberToken && state.token) {
        sessionStorage.setItem(TOKEN_KEY, state.token);
      } else {
        sessionStorage.removeItem(TOKEN_KEY);
      }
    } catch {
      // See above.
    }
  });
}
