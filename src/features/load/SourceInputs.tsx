/**
 * The controls that take a source from the user: a file picker, a folder picker and a URL box. The main load UI
 * opens what they give as A; the compare picker opens it as B. Only the store action and the wording differ.
 */
import { useEffect, useRef, useState } from 'react';
import type { LocalFileEntry, SourceSpec } from '../../core/result';
import { filesFromInput } from './dropped-files';
import { pickableFiles } from './format-names';

/** Every format the app reads (format-names.ts). */
const PICKABLE_FILES = pickableFiles();

/**
 * A button that opens the browser's file picker: several files, or with `folder` a whole folder (a sharded model
 * with its index and config.json) through `<input webkitdirectory>`.
 */
export function FilesPickerButton({
  label,
  folder = false,
  testId,
  onFiles,
}: {
  label: string;
  folder?: boolean;
  /** Test id of the hidden `<input type="file">`. */
  testId: string;
  onFiles: (files: LocalFileEntry[]) => Promise<void>;
}) {
  const input = useRef<HTMLInputElement | null>(null);
  return (
    <>
      <button type="button" onClick={() => input.current?.click()}>
        {label}
      </button>
      <input
        ref={(element) => {
          input.current = element;
          if (folder) {
            // Not in React's attribute types; every current browser supports it.
            element?.setAttribute('webkitdirectory', '');
          }
        }}
        type="file"
        multiple={!folder}
        accept={folder ? undefined : PICKABLE_FILES}
        data-testid={testId}
        hidden
        onChange={(event) => {
          if (event.target.files) {
            void onFiles(filesFromInput(event.target.files));
          }
          // Picking the same file again must fire `change` again.
          event.target.value = '';
        }}
      />
    </>
  );
}

/** A pasted string that is plausibly a source: an http(s) URL or an `org/name` repo id. */
function looksLikeSource(text: string): boolean {
  const trimmed = text.trim();
  return (
    // One URL, or several (the files of one split GGUF), separated by white space.
    /^https?:\/\/\S+(?:\s+https?:\/\/\S+)*$/i.test(trimmed) ||
    /^(hf\.co|huggingface\.co)\/\S+$/i.test(trimmed) ||
    /^[\w.-]+\/[\w.-]+$/.test(trimmed)
  );
}

function urlSource(url: string): SourceSpec {
  // The store's source loader attaches the session token as it opens the URL.
  return { kind: 'url', url: url.trim().replace(/\s+/g, ' ') };
}

/**
 * The URL box: a Hugging Face link, repo id, or any Range-capable http(s) URL. With `openOnPaste`, a source pasted
 * anywhere on the page outside a text field fills the box and opens too (only one box on the page may ask for it).
 */
export function SourceUrlForm({
  inputId,
  label,
  placeholder,
  submitLabel,
  onOpen,
  openOnPaste = false,
}: {
  inputId: string;
  /** The input's accessible name (the label is visually hidden; the placeholder says the same to sighted users). */
  label: string;
  placeholder: string;
  submitLabel: string;
  onOpen: (source: SourceSpec) => Promise<void>;
  openOnPaste?: boolean;
}) {
  const [url, setUrl] = useState('');

  useEffect(() => {
    if (!openOnPaste) {
      return;
    }
    const onPaste = (event: ClipboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.isContentEditable)) {
        return;
      }
      const text = event.clipboardData?.getData('text/plain') ?? '';
      if (looksLikeSource(text)) {
        event.preventDefault();
        setUrl(text.trim());
        void onOpen(urlSource(text));
      }
    };
    window.addEventListener('paste', onPaste);
    return () => window.removeEventListener('paste', onPaste);
  }, [onOpen, openOnPaste]);

  return (
    <form
      className="url-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (url.trim()) {
          void onOpen(urlSource(url));
        }
      }}
    >
      <label className="visually-hidden" htmlFor={inputId}>
        {label}
      </label>
      <input
        id={inputId}
        type="text"
        inputMode="url"
        autoComplete="off"
        spellCheck={false}
        placeholder={placeholder}
        value={url}
        onChange={(event) => setUrl(event.target.value)}
      />
      <button type="submit">{submitLabel}</button>
    </form>
  );
}
