/**
 * "Try the probe texts" in the compare view's encode-both: a dozen texts that tell tokenizers apart, each encoded by
 * both sides one after the other, and which of them get other ids (where the two part). A GGUF set beside the
 * tokenizer.json it was converted from should get the same ids on every one.
 */
import { useState } from 'react';
import type { EncodeAnswer } from '../../core/analysis/tokenizer/encode';
import { PROBE_TEXTS } from '../../core/analysis/tokenizer/probe-texts';
import { groupDigits, plural } from '../../core/number-format';
import { numeric, TableHead } from '../../lib/TableHead';
import { partingOf } from './encoding-parting';

type Encode = (text: string) => Promise<EncodeAnswer | null>;

interface ProbeRow {
  text: string;
  a: number | null;
  b: number | null;
  /** What the two did with the text: the same ids, where they part, or why one side has none. */
  verdict: string;
  same: boolean;
}

export function ProbeTexts({ encodeA, encodeB }: { encodeA: Encode; encodeB: Encode }) {
  const [rows, setRows] = useState<ProbeRow[] | null>(null);
  const [running, setRunning] = useState(false);
  const run = async () => {
    setRunning(true);
    const done: ProbeRow[] = [];
    for (const text of PROBE_TEXTS) {
      // One text at a time on each side: each side's encoder answers in order anyway.
      const [a, b] = await Promise.all([encodeA(text), encodeB(text)]);
      done.push(probeRow(text, a, b));
      setRows([...done]);
    }
    setRunning(false);
  };
  const same = rows?.filter((row) => row.same).length ?? 0;
  return (
    <div className="probe-texts" data-testid="probe-texts">
      <p>
        <button type="button" onClick={() => void run()} disabled={running}>
          Try the {PROBE_TEXTS.length} probe texts
        </button>{' '}
        <span className="muted">
          digits, contractions, spaces and line breaks, accents and full-width forms, other scripts, emoji, code and
          special tokens, each encoded by both sides.
        </span>
      </p>
      {rows !== null && (
        <>
          <p data-testid="probe-texts-verdict" aria-live="polite">
            {running
              ? `${groupDigits(rows.length)} of ${groupDigits(PROBE_TEXTS.length)} probe texts encoded…`
              : same === rows.length
                ? `Every probe text gets the same ids on both sides (${plural(rows.length, 'text')}).`
                : `${groupDigits(rows.length - same)} of ${plural(rows.length, 'probe text')} ` +
                  `${rows.length - same === 1 ? 'gets' : 'get'} other ids on the two sides.`}
          </p>
          <div className="table-scroll">
            <table className="plain-table" data-testid="probe-texts-table">
              <TableHead columns={['Text', numeric('A tokens'), numeric('B tokens'), 'Ids']} />
              <tbody>
                {rows.map((row) => (
                  <tr key={row.text} className={row.same ? undefined : 'probe-differs'}>
                    <td className="mono probe-text" title={row.text}>
                      {JSON.stringify(row.text)}
                    </td>
                    <td className="num">{row.a === null ? '—' : groupDigits(row.a)}</td>
                    <td className="num">{row.b === null ? '—' : groupDigits(row.b)}</td>
                    <td>{row.verdict}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}

function probeRow(text: string, a: EncodeAnswer | null, b: EncodeAnswer | null): ProbeRow {
  const idsA = a?.result?.ids ?? null;
  const idsB = b?.result?.ids ?? null;
  const counts = { text, a: idsA?.length ?? null, b: idsB?.length ?? null };
  if (idsA === null || idsB === null) {
    const side = idsA === null ? 'A' : 'B';
    const why = (idsA === null ? a : b)?.error ?? 'no answer';
    return { ...counts, same: false, verdict: `${side} could not encode it: ${why}` };
  }
  const parting = partingOf(idsA, idsB);
  return parting === null
    ? { ...counts, same: true, verdict: 'same' }
    : { ...counts, same: false, verdict: `part at token ${groupDigits(parting.from + 1)}` };
}
