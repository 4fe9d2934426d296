/**
 * The tokenizers token by token (core/compare/vocabulary-diff.ts), in the compare view's tokenizer card: offered
 * when each side has a token list (a GGUF's own, or a tokenizer.json, read on the same click when it is not yet).
 * Reading tokenizer.json also sets its model, size and pipeline side by side (the card's field table).
 */
import type { Listed, LoneToken, VocabularyDiff, VocabularySide } from '../../core/compare/vocabulary-diff';
import { formatBytes, groupDigits, plural } from '../../core/number-format';
import type { LoadResult } from '../../core/result';
import { TableHead } from '../../lib/TableHead';
import { listedTokens } from '../../state/selectors';
import type { ReadySlot } from '../../state/source-loader';
import { bytesProgressText, EntryProgress } from '../values/EntryStatus';
import { useAppStore } from '../../state/store';

/** Changed tokens shown in the card; the report keeps the first MAX_TOKENS_LISTED_PER_SIDE. */
const CHANGES_SHOWN = 20;
/** Tokens only one side has, named in the card before "and N more". */
const LONE_SHOWN = 12;

function isGguf(result: LoadResult): boolean {
  return result.outcome.kind === 'parsed' && result.outcome.header.gguf !== undefined;
}

export function VocabularyLine({ a, b }: { a: ReadySlot; b: ReadySlot }) {
  const compare = useAppStore((state) => state.compareVocabularies);
  const cancelA = useAppStore((state) => state.cancelVocabulary);
  const cancelB = useAppStore((state) => state.cancelCompareVocabulary);
  const state = useAppStore((state) => state.vocabularyDiff);
  if (listedTokens(a.result) === null || listedTokens(b.result) === null) {
    // A tokenizer.json asked for and not there (or not one) says why here too, not only in that side's Tokenizer tab.
    const problems = (['A', 'B'] as const).flatMap((side) => {
      const problem = (side === 'A' ? a : b).result.sections.tokenizer?.vocabularyProblem;
      return problem === undefined ? [] : [`${side}: ${problem}`];
    });
    return problems.length === 0 ? null : (
      <p className="muted" data-testid="tokenizer-diff-vocabulary-problem">
        Tokens not compared. {problems.join(' ')}
      </p>
    );
  }
  const current = state.status !== 'idle' && state.loadA === a.result.loadId && state.loadB === b.result.loadId;
  const reading = [a, b].filter((side) => side.vocabularyReading === true);
  if (reading.length > 0) {
    const done = reading.reduce((sum, side) => sum + (side.vocabularyProgress?.bytesRead ?? 0), 0);
    const totals = reading.map((side) => side.vocabularyProgress?.bytesTotal ?? side.result.vocabularyBytes ?? null);
    const total = totals.includes(null) ? null : totals.reduce<number>((sum, bytes) => sum + (bytes ?? 0), 0);
    return (
      <EntryProgress
        done={done}
        total={total}
        text={bytesProgressText('Reading tokenizer.json', done, total)}
        onCancel={() => {
          cancelA();
          cancelB();
        }}
      />
    );
  }
  if (current && state.status === 'running') {
    return (
      <p className="muted" role="status">
        Comparing every token…
      </p>
    );
  }
  if (current && state.status === 'ready') {
    return <VocabularyDiffView diff={state.diff} />;
  }
  const unread = [a, b].filter((side) => listedTokens(side.result) === 'unread');
  const gguf = isGguf(a.result) || isGguf(b.result);
  const sizes = unread.map((side) =>
    side.result.vocabularyBytes === undefined ? 'size unknown' : formatBytes(side.result.vocabularyBytes),
  );
  return (
    <p className="muted" data-testid="tokenizer-diff-vocabulary">
      {current && state.status === 'error' && <span className="error-text">{state.message} </span>}
      {unread.length > 0
        ? `${unread.length === 2 ? 'Both sides have' : `${unread[0] === a ? 'A' : 'B'} has`} a tokenizer.json (${sizes.join(' and ')}) not read yet: `
        : 'Both sides list their tokens: '}
      every id's token{gguf ? ' (a GGUF as llama.cpp reads it)' : ''} and the merges can be compared
      {unread.length > 0 ? ', with the model, vocabulary size and pipeline' : ''}.{' '}
      <button type="button" className="link-button" onClick={() => void compare()}>
        {unread.length > 0 ? 'Read and compare every token' : 'Compare every token'}
      </button>
    </p>
  );
}

function sideLabel(side: VocabularySide): string {
  const origin = side.origin === 'gguf' ? 'GGUF' : 'tokenizer.json';
  const merges = side.merges === null ? 'no merges' : plural(side.merges, 'merge');
  const pre = side.pre === undefined ? '' : `, pre-tokenizer ${side.pre ?? 'none'}`;
  return `${plural(side.tokens, 'token')} (${origin}${side.model ? `, ${side.model}` : ''}${pre}), ${merges}`;
}

/** A token as text a reader can tell apart: quoted, with a space, newline or tab shown as JSON writes it. */
function shown(text: string): string {
  return JSON.stringify(text);
}

function VocabularyDiffView({ diff }: { diff: VocabularyDiff }) {
  const allowed = [
    diff.respelled > 0 &&
      `${groupDigits(diff.respelled)} more in llama.cpp's spelling (▁ before a word, no ## on a continuation, a space for an added token's ▁)`,
    diff.padded > 0 && `${groupDigits(diff.padded)} empty ids filled as [PAD<id>] by the converter`,
  ].filter((part): part is string => typeof part === 'string');
  const counts = `${groupDigits(diff.same)} ids hold the same text on both sides${allowed.map((part) => `, ${part}`).join('')}.`;
  return (
    <div data-testid="vocabulary-diff">
      <h4>Token by token</h4>
      <p>
        A: {sideLabel(diff.a)}. B: {sideLabel(diff.b)}.
      </p>
      {diff.identical ? (
        <>
          <p data-testid="vocabulary-diff-same">
            Every token is the same: {counts}
            {diff.merges ? ' The merges are in the same order.' : ''}
          </p>
          {diff.merges === null && <MergesLine diff={diff} />}
        </>
      ) : (
        <>
          <p data-testid="vocabulary-diff-counts">{counts}</p>
          <ChangedTokens diff={diff} />
          <LoneTokens label="Ids only A has a token for" listed={diff.onlyInA} testId="only-a" />
          <LoneTokens label="Ids only B has a token for" listed={diff.onlyInB} testId="only-b" />
          <MergesLine diff={diff} />
          {diff.preDiffers && (
            <p data-testid="vocabulary-diff-pre">
              The pre-tokenizers differ (A {diff.a.pre ?? 'none'}, B {diff.b.pre ?? 'none'}): llama.cpp cuts text into
              words otherwise before BPE, so the same text can get other tokens even over one vocabulary.
            </p>
          )}
        </>
      )}
    </div>
  );
}

function ChangedTokens({ diff }: { diff: VocabularyDiff }) {
  const { count, first } = diff.changed;
  if (count === 0) {
    return null;
  }
  const rows = first.slice(0, CHANGES_SHOWN);
  return (
    <>
      <p data-testid="vocabulary-diff-changed">
        Another token at the same id: {groupDigits(count)} (the same text gets other ids on the two sides)
        {count > rows.length ? `; the first ${rows.length} here, the report lists ${first.length}` : ''}.
      </p>
      <table className="plain-table">
        <TableHead columns={['Id', 'A', 'B']} />
        <tbody>
          {rows.map((change) => (
            <tr key={change.id}>
              <td className="num">{groupDigits(change.id)}</td>
              <td className="mono">{shown(change.a)}</td>
              <td className="mono">{shown(change.b)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function LoneTokens({ label, listed, testId }: { label: string; listed: Listed<LoneToken>; testId: string }) {
  if (listed.count === 0) {
    return null;
  }
  const named = listed.first.slice(0, LONE_SHOWN);
  return (
    <p data-testid={`vocabulary-diff-${testId}`}>
      {label} ({groupDigits(listed.count)}):{' '}
      {named.map((token) => `${shown(token.text)} (${groupDigits(token.id)})`).join(', ')}
      {listed.count > named.length && `, and ${groupDigits(listed.count - named.length)} more`}
    </p>
  );
}

function MergesLine({ diff }: { diff: VocabularyDiff }) {
  const { merges } = diff;
  if (merges === null) {
    const missing = [diff.a.merges === null && 'A', diff.b.merges === null && 'B'].filter(Boolean);
    if (missing.length === 2) {
      return null;
    }
    return (
      <p className="muted" data-testid="vocabulary-diff-merges">
        Merges not compared: {missing.join(' and ')} keeps none (a SentencePiece or WordPiece tokenizer ranks its tokens
        by score or by length instead).
      </p>
    );
  }
  if (merges.first === null) {
    return (
      <p data-testid="vocabulary-diff-merges">Merges: {groupDigits(diff.a.merges ?? 0)} on both sides, in one order.</p>
    );
  }
  const { rank, a, b } = merges.first;
  return (
    <p data-testid="vocabulary-diff-merges">
      Merges differ: {plural(merges.reranked, 'rank')} {merges.reranked === 1 ? 'holds' : 'hold'} another merge,{' '}
      {groupDigits(merges.onlyInA)} only in A, {groupDigits(merges.onlyInB)} only in B (BPE applies them by rank, so the
      same text can split otherwise); the first at rank {groupDigits(rank)}: A {a === null ? 'none' : shown(a)}, B{' '}
      {b === null ? 'none' : shown(b)}.
    </p>
  );
}
