/** Every `__metadata__` key and value. JSON values are pretty-printed; long values fold; only http(s) links. */
import { useState } from 'react';
import { MAX_METADATA_VALUE_DISPLAY_CHARS, MAX_NAME_DISPLAY_CHARS } from '../../core/limits';
import type { MetadataEntry, ParsedHeader } from '../../core/model';
import { shortenForDisplay } from '../../lib/display-text';
import { safeHttpUrl } from '../../lib/safe-link';

function prettyJson(value: string): string | null {
  const trimmed = value.trim();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('['))) {
    return null;
  }
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2);
  } catch {
    return null;
  }
}

function MetadataValue({ entry }: { entry: MetadataEntry }) {
  const [expanded, setExpanded] = useState(false);
  const pretty = entry.kind === 'string' ? prettyJson(entry.value) : null;
  const text = pretty ?? entry.value;
  const long = text.length > MAX_METADATA_VALUE_DISPLAY_CHARS;
  const shown = long && !expanded ? `${text.slice(0, MAX_METADATA_VALUE_DISPLAY_CHARS)}…` : text;
  const link = entry.kind === 'string' ? safeHttpUrl(entry.value) : null;
  return (
    <dd>
      {link ? (
        <a href={link} target="_blank" rel="noopener noreferrer nofollow">
          {shown}
        </a>
      ) : pretty ? (
        <pre>{shown}</pre>
      ) : (
        <span className="meta-text">{shown}</span>
      )}
      {entry.kind !== 'string' && <span className="badge bad">not a string ({entry.kind})</span>}
      {long && (
        <button type="button" className="link-button" onClick={() => setExpanded(!expanded)}>
          {expanded ? 'Show less' : `Show all ${text.length.toLocaleString()} characters`}
        </button>
      )}
    </dd>
  );
}

export function MetadataPanel({ header }: { header: ParsedHeader }) {
  const entries = header.metadata;
  return (
    <section className="metadata" aria-label="Metadata">
      <p className="muted">
        <code>__metadata__</code> is a free-form string → string map stored beside the tensors. It is not a tensor and
        holds no weights.
      </p>
      {header.metadataState === 'absent' && (
        <p data-testid="no-metadata">
          This file has no <code>__metadata__</code>.
        </p>
      )}
      {header.metadataState === 'null' && (
        <p data-testid="no-metadata">
          <code>__metadata__</code> is <code>null</code> (MLX writes this): there is no metadata.
        </p>
      )}
      {header.metadataState === 'object' && entries.length === 0 && (
        <p data-testid="no-metadata">
          <code>__metadata__</code> is empty.
        </p>
      )}
      {entries.length > 0 && (
        <dl className="meta-list">
          {entries.map((entry, index) => (
            <div key={index} className="meta-row">
              <dt>{shortenForDisplay(entry.key, MAX_NAME_DISPLAY_CHARS)}</dt>
              <MetadataValue entry={entry} />
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}
