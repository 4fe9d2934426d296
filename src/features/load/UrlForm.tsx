/**
 * The URL box: a Hugging Face link, repo id, or any Range-capable http(s) URL; pasting a URL anywhere on the page
 * (outside text fields) loads it too. The optional token is held in memory and sent only to Hugging Face hosts.
 */
import { useEffect, useRef, useState } from 'react';
import { useAppStore } from '../../state/store';
import { SourceUrlForm } from './SourceInputs';

/** The main URL box; a source pasted anywhere on the page (outside text fields) opens through it too. */
export function UrlForm() {
  const openSource = useAppStore((state) => state.openSource);
  return (
    <SourceUrlForm
      inputId="url-input"
      label="URL of a model file"
      placeholder="Paste a Hugging Face URL, repo id or any Range URL"
      submitLabel="Open"
      onOpen={openSource}
      openOnPaste
    />
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
