/**
 * The GGUF tab: the file's layout, the real per-type mix behind its quant label, the tokenizer (special and added
 * tokens with their text), the chat template as code with a rendered sample conversation, and every key-value with
 * its type (arrays as their count and first items).
 */
import { useState } from 'react';
import type { GgufSummary } from '../../core/formats/sections';
import type { ParsedHeader } from '../../core/model';
import { formatBytes, formatShare, groupDigits } from '../../core/number-format';
import { Fact } from '../insights/QuantizationPanel';
import { ChatTemplateCard, TurnEndNote, useChatPreview } from '../chat-template/ChatTemplateCard';
import { ggufEndOfTurn, ggufEndOfTurnFinding } from '../../core/analysis/tokenizer/gguf-end-of-turn';
import { SAMPLE_REPLY } from '../../core/analysis/tokenizer/chat-preview';
import { TokenBrowser } from '../tokenizer/TokenBrowser';
import { EncodeText } from '../tokenizer/EncodeText';
import { describePreTokenizer } from '../../core/analysis/tokenizer/llama-pre-tokenizers';
import './gguf.css';
import { numeric, TableHead } from '../../lib/TableHead';

/** Added tokens listed before the rest fold behind "show all". */
const FOLDED_TOKENS = 24;

export function GgufPanel({ header }: { header: ParsedHeader }) {
  const gguf = header.gguf;
  if (!gguf) {
    return null;
  }
  return (
    <div className="gguf-panel" data-testid="gguf-panel">
      <FileCard gguf={gguf} />
      {gguf.quantMix.length > 0 && <QuantMixCard gguf={gguf} />}
      {gguf.tokenizer && <TokenizerCard gguf={gguf} refusedBy={refusedTokenizer(header)} />}
      {gguf.chatTemplate !== null && <GgufChatTemplate gguf={gguf} source={gguf.chatTemplate} />}
      <KeysCard gguf={gguf} />
    </div>
  );
}

function FileCard({ gguf }: { gguf: GgufSummary }) {
  return (
    <section className="insight" aria-label="GGUF file">
      <h3>GGUF file</h3>
      <dl className="facts">
        <Fact label="Version" value={`GGUF v${gguf.version}`} />
        <Fact label="Byte order" value={gguf.littleEndian ? 'little-endian' : 'big-endian'} />
        <Fact label="Architecture" value={gguf.architecture ?? '—'} testId="gguf-architecture" />
        <Fact
          label="Quant label"
          value={gguf.fileTypeLabel ?? (gguf.fileType === null ? '—' : `file_type ${gguf.fileType}`)}
          testId="gguf-file-type"
        />
        <Fact
          label="Context length"
          value={gguf.contextLength === null ? '—' : `${groupDigits(gguf.contextLength)} tokens`}
        />
        <Fact label="Blocks" value={gguf.blockCount === null ? '—' : groupDigits(gguf.blockCount)} />
        <Fact label="Key-values" value={groupDigits(gguf.kvCount)} />
        <Fact label="Alignment" value={`${groupDigits(gguf.alignment)} B`} />
        <Fact
          label="Data starts at"
          value={`byte ${groupDigits(gguf.dataStart)}`}
          title="The end of the tensor infos, padded to the alignment"
        />
        {gguf.split && (
          <Fact
            label="Split"
            value={`part ${gguf.split.no + 1} of ${gguf.split.count}${gguf.split.tensors === null ? '' : ` · ${groupDigits(gguf.split.tensors)} tensors in all`}`}
          />
        )}
      </dl>
    </section>
  );
}

function QuantMixCard({ gguf }: { gguf: GgufSummary }) {
  const total = gguf.quantMix.reduce((sum, entry) => sum + entry.bytes, 0);
  return (
    <section className="insight" aria-label="Quant mix">
      <h3>Quant mix{gguf.fileTypeLabel && <span className="muted"> behind “{gguf.fileTypeLabel}”</span>}</h3>
      <div className="table-scroll">
        <table className="gguf-table" data-testid="gguf-quant-mix">
          <TableHead
            columns={['ggml type', numeric('Tensors'), numeric('Bytes'), numeric('Share'), numeric('Bits/weight')]}
          />
          <tbody>
            {gguf.quantMix.map((entry) => (
              <tr key={entry.type}>
                <td className="mono">{entry.type}</td>
                <td className="num">{groupDigits(entry.tensors)}</td>
                <td className="num">{formatBytes(entry.bytes)}</td>
                <td className="num">{total > 0 ? formatShare(entry.bytes / total) : '—'}</td>
                <td className="num">
                  {entry.bitsPerWeight > 0 ? entry.bitsPerWeight.toFixed(4).replace(/\.?0+$/, '') : '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** The vocabulary findings for which llama.cpp will not load the tokenizer at all (even for llama-tokenize). */
const TOKENIZER_REFUSALS = new Set(['gguf-duplicate-token', 'gguf-vocab-array-short']);

function refusedTokenizer(header: ParsedHeader): string[] {
  return [...new Set(header.findings.filter((f) => TOKENIZER_REFUSALS.has(f.code)).map((f) => f.code))];
}

function TokenizerCard({ gguf, refusedBy }: { gguf: GgufSummary; refusedBy: string[] }) {
  const tokenizer = gguf.tokenizer;
  const [showAll, setShowAll] = useState(false);
  if (!tokenizer) {
    return null;
  }
  const added = showAll ? tokenizer.added : tokenizer.added.slice(0, FOLDED_TOKENS);
  return (
    <section className="insight" aria-label="Tokenizer">
      <h3>Tokenizer</h3>
      <dl className="facts">
        <Fact label="Model" value={tokenizer.model ?? '—'} testId="gguf-tokenizer-model" />
        <Fact
          label="Pre-tokenizer"
          value={tokenizer.model === 'gpt2' ? describePreTokenizer(tokenizer.pre) : (tokenizer.pre ?? '—')}
          testId="gguf-pre-tokenizer"
        />
        <Fact label="Vocabulary" value={`${groupDigits(tokenizer.vocabSize)} tokens`} testId="gguf-vocab-size" />
        <Fact label="Merges" value={tokenizer.merges === null ? '—' : groupDigits(tokenizer.merges)} />
        {tokenizer.types.length > 0 && (
          <Fact
            label="Token types"
            value={tokenizer.types.map(({ type, count }) => `${groupDigits(count)} ${type}`).join(' · ')}
            testId="gguf-token-types"
          />
        )}
      </dl>
      {tokenizer.special.length > 0 && (
        <table className="gguf-table" data-testid="gguf-special-tokens">
          <caption>Special tokens</caption>
          <TableHead columns={['Role', numeric('Id'), 'Text']} />
          <tbody>
            {tokenizer.special.map((token) => (
              <tr key={token.role}>
                <td>{token.role.toUpperCase()}</td>
                <td className="num">{groupDigits(token.id)}</td>
                <td className="mono">
                  {token.text === null ? (
                    <span className="muted">past the end of the list</span>
                  ) : (
                    JSON.stringify(token.text)
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {tokenizer.vocabSize > 0 && (
        <>
          <p className="muted">
            A text below is encoded as llama.cpp tokenizes it with this file&apos;s tokenizer.ggml keys: its
            pre-tokenizer, merges or scores, control and user-defined tokens matched in the text, BOS and EOS as the
            file says.
          </p>
          {refusedBy.length > 0 && (
            <p className="values-error" role="alert" data-testid="gguf-encode-refused">
              llama.cpp refuses this tokenizer ({refusedBy.join(', ')} in Findings), so it encodes nothing; the ids
              below are what its tokens would give if it loaded.
            </p>
          )}
          <EncodeText />
          <TokenBrowser section="tokens" total={tokenizer.vocabSize} testId="gguf-token-browser" />
        </>
      )}
      {tokenizer.addedCount > 0 && (
        <div className="gguf-added" data-testid="gguf-added-tokens">
          <p>
            {groupDigits(tokenizer.addedCount)} added token{tokenizer.addedCount === 1 ? '' : 's'} (control and
            user-defined):
          </p>
          <ul className="token-chips">
            {added.map((token) => (
              <li key={token.id} title={`id ${token.id}, ${token.kind}`}>
                <code>{token.text ?? `#${token.id}`}</code>
              </li>
            ))}
          </ul>
          {tokenizer.added.length > FOLDED_TOKENS && (
            <button type="button" onClick={() => setShowAll(!showAll)}>
              {showAll ? 'Show fewer' : `Show all ${groupDigits(tokenizer.added.length)}`}
            </button>
          )}
          {tokenizer.addedCount > tokenizer.added.length && (
            <p className="muted">The first {groupDigits(tokenizer.added.length)} are listed.</p>
          )}
        </div>
      )}
    </section>
  );
}

/** The GGUF's template, rendered with its own bos and eos tokens, and whether llama.cpp stops where it ends a turn. */
function GgufChatTemplate({ gguf, source }: { gguf: GgufSummary; source: string }) {
  const bos = specialText(gguf, 'bos');
  const eos = specialText(gguf, 'eos');
  const preview = useChatPreview({ source, bos, eos });
  const end = preview?.ok ? ggufEndOfTurn(preview.text, SAMPLE_REPLY, gguf) : null;
  return (
    <ChatTemplateCard source={source} preview={preview}>
      {preview?.ok && <TurnEndNote end={end} finding={ggufEndOfTurnFinding(end)} />}
    </ChatTemplateCard>
  );
}

function specialText(gguf: GgufSummary, role: string): string {
  return gguf.tokenizer?.special.find((token) => token.role === role)?.text ?? '';
}

function KeysCard({ gguf }: { gguf: GgufSummary }) {
  return (
    <section className="insight" aria-label="Key-values">
      <h3>
        Key-values <span className="muted">({groupDigits(gguf.kvs.length)})</span>
      </h3>
      <div className="table-scroll">
        <table className="gguf-table gguf-keys" data-testid="gguf-keys">
          <TableHead columns={['Key', 'Type', 'Value']} />
          <tbody>
            {gguf.kvs.map((kv, index) => (
              <tr key={`${index}:${kv.key}`}>
                <td className="mono">{kv.key}</td>
                <td className="mono nowrap">
                  {kv.type === 'ARRAY' ? `${kv.elementType}[${groupDigits(kv.count ?? 0)}]` : kv.type}
                </td>
                <td className="mono gguf-value">{kv.value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
