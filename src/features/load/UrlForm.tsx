/**
 * The URL box: a Hugging Face link, repo id, or any Range-capable http(s) URL; pasting a URL anywhere on the page
 * (outside text fields) loads it too. The optional token is held in memory and sent only to Hugging Face hosts.
 */
import { useEffect, useRef, useState } from 'react';
import { useAppStore } from '../../state/store';

/** A pasted string that is plausibly a source: an http(s) URL or an `org/name` repo id. */
export function looksLikeSource(text: string): boolean {
  const trimmed = text.trim();
  return (
    /^https?:\/\/\S+$/i.test(trimmed) ||
    /^(hf\.co|huggingface\.co)\/\S+$/i.test(trimmed) ||
    /^[\w.-]+\/[\w.-]+$/.test(trimmed)
  );
}

export function UrlForm() {
  const openSource = useAppStore((state) => state.openSource);
  const token = useAppStore((state) => state.token);
  const [url, setUrl] = useState('');

  useEffect(() => {
    const onPaste = (event: ClipboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.isContentEditable)) {
        return;
      }
      const text = event.clipboardData?.getData('text/plain') ?? '';
      if (looksLikeSource(text)) {
        event.preventDefault();
        setUrl(text.trim());
        void openSource({ kind: 'url', url: text.trim(), token: useAppStore.getState().token || undefined });
      }
    };
    window.addEventListener('paste', onPaste);
    return () => window.removeEventListener('paste', onPaste);
  }, [openSource]);

  return (
    <form
      className="url-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (url.trim()) {
          void openSource({ kind: 'url', url: url.trim(), token: token || undefined });
        }
      }}
    >
      <label className="visually-hidden" htmlFor="url-input">
        URL of a .safetensors file
      </label>
      <input
        id="url-input"
        type="text"
        inputMode="url"
        autoComplete="off"
        spellCheck={false}
        placeholder="Paste a Hugging Face URL, repo id or any Range URL"
        value={url}
        onChange={(event) => setUrl(event.target.value)}
      />
      <button type="submit">Open</button>
    </form>
  );
}

export function TokenControl() {
  const token = useAppStore((state) => state.token);
  const setToken = useAppStore((state) => state.setToken);
  const remember = useAppStore((state) => state.rememberToken);
  const setRemember = useAppStore((state) => state.setRememberToken);
  const [open, setOpen] = useState(false);
  const controlRef = useRef<HTMLDivElement>(null);
  // A popover floats over the results: Escape or a click anywhere else puts it away, as users expect.
  useEffect(() => {
    if (!open) {
      return;
    }
    const closeOnOutside = (event: PointerEvent) => {
      if (!controlRef.current?.contains(event.target as Node)) {
        setOpen(false);
      }
    };
    const closeOnEscape = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        setOpen(false);
      }
    };
    document.addEventListener('pointerdown', closeOnOutside);
    document.addEventListener('keydown', closeOnEscape);
    return () => {
      document.removeEventListener('pointerdown', closeOnOutside);
      document.removeEventListener('keydown', closeOnEscape);
    };
  }, [open]);
  return (
    <div className="token-control" ref={controlRef}>
      <button
        type="button"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        title="Access token for gated or private Hugging Face repos"
      >
        Token{token ? ' (set)' : ''}
      </button>
      {open && (
        <div className="token-popover" role="dialog" aria-label="Hugging Face access token">
          <label>
            Hugging Face access token (for gated or private repos)
            <input
              type="password"
              autoComplete="off"
              placeholder="hf_…"
              value={token}
              onChange={(event) => setToken(event.target.value)}
            />
          </label>
          <label className="inline">
            <input type="checkbox" checked={remember} onChange={(event) => setRemember(event.target.checked)} />{' '}
            Remember for this tab (sessionStorage)
          </label>
          <p className="muted">
            Sent only to huggingface.co and hf.co, never to other hosts. Never put in share links or reports. A
            read-only token is enough.
          </p>
          {token && (
            <button type="button" onClick={() => setToken('')}>
              Forget token
            </button>
          )}
        </div>
      )}
    </div>
  );
}
