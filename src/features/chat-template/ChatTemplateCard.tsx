/**
 * A chat template as code beside its rendering on a sample conversation (chat-preview.ts). The GGUF tab shows the
 * file's template; the Tokenizer tab shows a transformers model's, with a choice among its named templates.
 */
import { useEffect, useState, type ReactNode } from 'react';
import { groupDigits } from '../../core/number-format';
import type { ChatPreview, ChatTemplateInput } from '../../core/analysis/tokenizer/chat-preview';
import { useAppStore } from '../../state/store';
import { CopyButton } from '../../lib/CopyButton';
import { CodeText } from '../../lib/CodeText';
import { codeSpec } from '../../core/findings/codes';
import type { EndOfTurn } from '../../core/analysis/tokenizer/end-of-turn';
import type { Finding } from '../../core/model';
import './chat-template.css';

/** The preview of `input`, rendered on first use of the interpreter; null while it renders. */
export function useChatPreview(input: ChatTemplateInput | null): ChatPreview | null {
  const render = useAppStore((state) => state.renderChatTemplate);
  const [preview, setPreview] = useState<{ input: ChatTemplateInput; preview: ChatPreview } | null>(null);
  const source = input?.source;
  const bos = input?.bos;
  const eos = input?.eos;
  useEffect(() => {
    if (source === undefined || bos === undefined || eos === undefined) {
      return;
    }
    let live = true;
    const asked = { source, bos, eos };
    void render(asked).then((rendered) => {
      if (live) {
        setPreview({ input: asked, preview: rendered });
      }
    });
    return () => {
      live = false;
    };
  }, [source, bos, eos, render]);
  const current = preview?.input;
  return current && current.source === source && current.bos === bos && current.eos === eos ? preview.preview : null;
}

export function ChatTemplateCard({
  source,
  preview,
  title = 'Chat template',
  children,
}: {
  source: string;
  preview: ChatPreview | null;
  title?: string;
  /** Above the template: a choice among templates, where it came from. */
  children?: ReactNode;
}) {
  return (
    <section className="insight" aria-label={title}>
      <h3>{title}</h3>
      {children}
      <div className="chat-template">
        <div>
          <div className="code-head">
            <h4>Template ({groupDigits(source.length)} characters)</h4>
            <CopyButton text={source} testId="copy-chat-template" />
          </div>
          <pre className="code-block" data-testid="chat-template">
            {source}
          </pre>
        </div>
        <div>
          <h4>Rendered on a sample conversation</h4>
          {preview === null ? (
            <p className="muted">Rendering…</p>
          ) : preview.ok ? (
            <>
              {preview.note && (
                <p className="muted" data-testid="chat-preview-note">
                  {preview.note}
                </p>
              )}
              <pre className="code-block" data-testid="chat-preview">
                {preview.text}
              </pre>
            </>
          ) : (
            <p className="chat-template-error" data-testid="chat-preview-error">
              {preview.reason}
            </p>
          )}
        </div>
      </div>
    </section>
  );
}

/** Where a template ends the assistant's turn and whether generation stops there: the finding, or a line saying so. */
export function TurnEndNote({ end, finding }: { end: EndOfTurn | null; finding: Finding | null }) {
  if (finding) {
    return (
      <div className="turn-end-finding" role="note" data-testid="turn-end-finding" data-code={finding.code}>
        <strong>
          ⚠ <code>{finding.code}</code> {codeSpec(finding.code)?.title}
        </strong>
        <p>
          <CodeText text={finding.message} />
        </p>
      </div>
    );
  }
  return (
    <p className="muted" data-testid="turn-end">
      {end === null
        ? 'No token the tokenizer names follows the sample reply, so where generation stops is not checked.'
        : end.stops === null
          ? `A turn ends with ${end.text}; its id is not known, so whether generation stops there is not checked.`
          : `A turn ends with ${end.text}${end.id === null ? '' : ` (id ${end.id})`}, which generation stops at (${end.stopsAt}).`}
    </p>
  );
}
