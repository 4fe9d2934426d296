/**
 * The Checkpoint tab for PyTorch files: the safety verdict (every global the pickle imports, with its count and
 * risk), the anatomy (where the weights are, the other sections, epoch and step, scalars, tied weights and views),
 * what an optimizer's state says of the training, and the exact Python that converts the file to safetensors without running code from it.
 */
import { checkpointTrainer } from '../../core/formats/pytorch/checkpoint-trainer';
import { CopyButton } from '../../lib/CopyButton';
import { useState } from 'react';
import type { ParsedHeader } from '../../core/model';
import type { DcpSummary } from '../../core/formats/sections';
import { formatBytes, groupDigits, plural } from '../../core/number-format';
import { Fact } from '../insights/QuantizationPanel';
import { convertAdvice } from './convert-script';
import { dcpBytesVerdict, formatLabel } from './format-label';
import { numeric, TableHead } from '../../lib/TableHead';
import { BreakableName } from '../../lib/BreakableName';
import { OptimizerCard } from './OptimizerCard';
import type { OptimizerStateSection } from '../../core/analysis/optimizer-state';
import './checkpoint.css';

/** Rows shown before a list folds behind "show all": keeps the panel short on 20,000-global hostile files. */
const FOLDED_ROWS = 12;

export function CheckpointPanel({
  header,
  fileName,
  optimizers,
}: {
  header: ParsedHeader;
  fileName: string;
  optimizers?: OptimizerStateSection;
}) {
  if (!header.pickle || !header.checkpoint) {
    return null;
  }
  return (
    <div className="fact-panel">
      <SafetyCard header={header} />
      {header.dcp && <DcpFilesCard dcp={header.dcp} />}
      <AnatomyCard header={header} />
      {optimizers && <OptimizerCard section={optimizers} />}
      <ConvertCard header={header} fileName={fileName} />
    </div>
  );
}

function SafetyCard({ header }: { header: ParsedHeader }) {
  const pickle = header.pickle;
  const [showAll, setShowAll] = useState(false);
  if (!pickle) {
    return null;
  }
  const dangerous = pickle.globals.filter((use) => use.risk === 'dangerous').length;
  const unknown = pickle.globals.filter((use) => use.risk === 'unknown').length;
  const bytes = header.dcp ? dcpBytesVerdict(header.dcp) : null;
  const level =
    pickle.dangerous > 0 || bytes?.level === 'dangerous'
      ? 'dangerous'
      : unknown > 0 || bytes?.level === 'unknown' || bytes?.level === 'unread'
        ? 'unknown'
        : 'safe';
  const hazards = pickle.hazards.length;
  const dangerParts = [
    dangerous > 0 ? `${dangerous} dangerous import${dangerous === 1 ? '' : 's'}` : '',
    hazards > 0 ? `${hazards} exploit-shaped construct${hazards === 1 ? '' : 's'}` : '',
  ].filter(Boolean);
  const dcp = header.dcp;
  const entries = (count: number) => plural(count, 'bytes entry', 'bytes entries');
  const headline =
    pickle.dangerous > 0
      ? `Dangerous: loading this file would run code (${dangerParts.join(', ')})`
      : bytes?.level === 'dangerous'
        ? `Dangerous: a full dcp.load would run code from ${entries(bytes.count)}; the tensors alone load safely`
        : unknown > 0
          ? `Unknown: ${unknown} import${unknown === 1 ? '' : 's'} outside torch's allowlist`
          : bytes?.level === 'unknown'
            ? `Unknown: ${entries(bytes.count)} import outside torch's allowlist, run by a full dcp.load`
            : bytes?.level === 'unread'
              ? `Metadata safe; ${entries(bytes.count)} not checked (see the findings)`
              : dcp
                ? `Safe: only Distributed Checkpoint's own metadata classes${bytes ? ' and plain bytes entries' : ''}`
                : 'Safe: only tensors and plain containers';
  const shown = showAll ? pickle.globals : pickle.globals.slice(0, FOLDED_ROWS);
  return (
    <section className="insight checkpoint-safety" aria-label="Pickle safety">
      <h3>Safety</h3>
      <p className={`safety-verdict risk-${level}`} data-testid="safety-verdict">
        {headline}
      </p>
      {dcp ? (
        <p data-testid="weights-only">
          <code>torch.distributed.checkpoint</code> unpickles this file with plain <code>pickle</code>, and each bytes
          entry with <code>torch.load(…, weights_only=False)</code>, so what they import is what loading runs. Nothing
          was run here: each pickle was read as data by a stack machine that imports nothing.
        </p>
      ) : (
        <p data-testid="weights-only">
          <code>torch.load(…, weights_only=True)</code>{' '}
          {pickle.weightsOnly === 'accepts' ? 'would accept this file.' : 'would refuse this file.'} Nothing was run
          here: the pickle was read as data by a stack machine that imports nothing.
        </p>
      )}
      {pickle.calls.length > 0 && (
        <div className="would-run" data-testid="would-run">
          <p>
            Loading it would run{' '}
            {pickle.callsTotal === 1 ? 'this call' : `these ${groupDigits(pickle.callsTotal)} calls`} (read as data,
            shown as text):
          </p>
          <ol>
            {pickle.calls.map((call, index) => (
              <li key={`${index}-${call.offset}`}>
                <code className="would-run-call">{call.text}</code>{' '}
                <span className="muted">(byte {groupDigits(call.offset)})</span>
              </li>
            ))}
          </ol>
          {pickle.callsTotal > pickle.calls.length && (
            <p className="muted">…and {groupDigits(pickle.callsTotal - pickle.calls.length)} more not listed.</p>
          )}
        </div>
      )}
      {pickle.hazards.length > 0 && (
        <ul className="hazards" data-testid="pickle-hazards">
          {pickle.hazards.map((hazard, index) => (
            <li key={`${index}-${hazard.offset}`}>
              {hazard.reason} <span className="muted">(byte {groupDigits(hazard.offset)})</span>
            </li>
          ))}
        </ul>
      )}
      <div className="table-scroll">
        <table className="globals-table" data-testid="globals-table">
          <caption>
            {groupDigits(pickle.globals.length)} global{pickle.globals.length === 1 ? '' : 's'} imported ·{' '}
            {groupDigits(pickle.storages)} storage{pickle.storages === 1 ? '' : 's'} · protocol {pickle.protocol}
          </caption>
          <TableHead
            columns={[
              'Global',
              numeric('Named', 'How many times the pickle names it (GLOBAL, STACK_GLOBAL, INST)'),
              'Risk',
              'Why',
            ]}
          />
          <tbody>
            {shown.map((use) => (
              <tr key={`${use.module}.${use.name}`}>
                <td className="mono">
                  <BreakableName text={`${use.module}.${use.name}`} />
                </td>
                <td className="num">{groupDigits(use.count)}</td>
                <td>
                  <span className={`risk-badge risk-${use.risk}`}>{use.risk}</span>
                </td>
                <td>{use.reason ?? (use.risk === 'safe' ? 'torch.save emits it; weights_only allows it' : '')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {pickle.globals.length > FOLDED_ROWS && (
        <button type="button" className="link-button" onClick={() => setShowAll(!showAll)}>
          {showAll ? 'Show fewer' : `Show all ${groupDigits(pickle.globals.length)}`}
        </button>
      )}
    </section>
  );
}

/** A Distributed Checkpoint's files: the bytes and items the metadata puts in each, and its bytes entries. */
function DcpFilesCard({ dcp }: { dcp: DcpSummary }) {
  const [showAll, setShowAll] = useState(false);
  const shown = showAll ? dcp.files : dcp.files.slice(0, FOLDED_ROWS);
  return (
    <section className="insight" aria-label="Distributed Checkpoint files" data-testid="dcp-files">
      <h3>Files beside the .metadata</h3>
      <p>
        {plural(dcp.files.length, '.distcp file')} hold {plural(dcp.chunks, 'tensor chunk')}
        {dcp.chunkedTensors > 0 ? ` (${plural(dcp.chunkedTensors, 'tensor')} split across ranks)` : ''}
        {dcp.byteEntries.length > 0 ? ` and ${plural(dcp.byteEntries.length, 'bytes entry', 'bytes entries')}` : ''},
        each a torch.save archive at the offset the metadata gives. Written by <code>{dcp.module}</code>.
      </p>
      <div className="table-scroll">
        <table className="globals-table">
          <TableHead columns={['File', numeric('Items', 'Chunks and bytes entries in it'), numeric('Bytes')]} />
          <tbody>
            {shown.map((file) => (
              <tr key={file.path}>
                <td className="mono">{file.path}</td>
                <td className="num">{groupDigits(file.items)}</td>
                <td className="num">{formatBytes(file.bytes)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {dcp.files.length > FOLDED_ROWS && !showAll && (
        <button type="button" className="link-button" onClick={() => setShowAll(true)}>
          Show all {groupDigits(dcp.files.length)}
        </button>
      )}
      {dcp.byteEntries.length > 0 && <DcpBytesEntries entries={dcp.byteEntries} />}
    </section>
  );
}

/** Each bytes entry with the object it holds and what unpickling it imports, as read at load (dcp-bytes.ts). */
function DcpBytesEntries({ entries }: { entries: DcpSummary['byteEntries'] }) {
  const [showAll, setShowAll] = useState(false);
  const shown = showAll ? entries : entries.slice(0, FOLDED_ROWS);
  return (
    <>
      <p>
        Bytes entries: objects that are not tensors (a step, an optimizer's settings, a scheduler's or a dataloader's
        state), each a torch.save archive that <code>dcp.load</code> unpickles with weights_only=False. Read here as
        data:
      </p>
      <div className="table-scroll">
        <table className="globals-table" data-testid="dcp-bytes-entries">
          <TableHead columns={['Entry', 'Value', 'Risk', 'Imports outside the allowlist']} />
          <tbody>
            {shown.map((entry) => (
              <tr key={entry.name}>
                <td className="mono">
                  <BreakableName text={entry.name} />
                </td>
                <td className="mono">{entry.value ?? '—'}</td>
                <td>
                  <span
                    className={`risk-badge risk-${entry.check === 'unread' ? 'unknown' : (entry.check ?? 'unknown')}`}
                  >
                    {entry.check ?? 'unread'}
                  </span>
                </td>
                <td>
                  {entry.check === 'unread' ? `not read: ${entry.unread}` : (entry.imports ?? []).join(', ') || 'none'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {entries.length > FOLDED_ROWS && (
        <button type="button" className="link-button" onClick={() => setShowAll(!showAll)}>
          {showAll ? 'Show fewer' : `Show all ${groupDigits(entries.length)}`}
        </button>
      )}
    </>
  );
}

function AnatomyCard({ header }: { header: ParsedHeader }) {
  const checkpoint = header.checkpoint;
  if (!checkpoint) {
    return null;
  }
  const weights =
    checkpoint.weights === null
      ? 'none found'
      : checkpoint.rootScripted
        ? `the root: a TorchScript ${checkpoint.rootModule} (torch.jit.save), its tensors named as its state_dict() names them`
        : checkpoint.rootModule
          ? `the root: a whole ${checkpoint.rootModule} pickled (torch.save(model)), its tensors named as its state_dict() names them`
          : checkpoint.weights === ''
            ? 'the root (a plain state dict)'
            : checkpoint.weights;
  const trainer = checkpointTrainer(checkpoint.scalars);
  const scalars = checkpoint.scalars.filter(
    (scalar) => !scalar.path.includes('.') || scalar.path.split('.').length <= 2,
  );
  return (
    <section className="insight checkpoint-anatomy" aria-label="Checkpoint anatomy">
      <h3>Anatomy: {formatLabel(header.format, header)}</h3>
      <dl className="facts">
        {trainer !== null && <Fact label="Saved by" value={trainer} testId="checkpoint-trainer" />}
        <Fact label="Model weights" value={weights} testId="checkpoint-weights" />
        {checkpoint.weightsPrefix && <Fact label="Name prefix" value={checkpoint.weightsPrefix} />}
        {checkpoint.epoch !== undefined && (
          <Fact label="Epoch" value={groupDigits(checkpoint.epoch)} testId="checkpoint-epoch" />
        )}
        {checkpoint.globalStep !== undefined && (
          <Fact label="Global step" value={groupDigits(checkpoint.globalStep)} testId="checkpoint-step" />
        )}
        <Fact
          label="Tied weights"
          value={
            checkpoint.tied.length === 0
              ? 'none'
              : `${checkpoint.tied.length} pair${checkpoint.tied.length === 1 ? '' : 's'}`
          }
          testId="checkpoint-tied"
        />
        <Fact
          label="Views"
          value={checkpoint.views.length === 0 ? 'none' : plural(checkpoint.views.length, 'tensor')}
          testId="checkpoint-views"
        />
        <Fact
          label="Names sharing storage"
          value={
            checkpoint.sharedNames === 0
              ? 'none'
              : `${groupDigits(checkpoint.sharedNames)}, counted once in elements and bytes`
          }
          testId="checkpoint-shared"
        />
      </dl>
      {checkpoint.sections.length > 0 && (
        <div className="table-scroll">
          <table className="sections-table" data-testid="sections-table">
            <caption>Sections</caption>
            <TableHead
              columns={[
                'Key',
                'Kind',
                numeric('Tensors'),
                numeric(
                  'Elements',
                  'Elements with each storage region counted once: a tied name, a view, or the indices of a tensor saved as parts add nothing',
                ),
                numeric('Bytes', 'Bytes of the storages in the file, each counted once'),
              ]}
            />
            <tbody>
              {checkpoint.sections.map((section) => (
                <tr key={section.path || '(root)'}>
                  <td className="mono">{section.path || '(root)'}</td>
                  <td>{section.kind === 'empty' ? 'empty (None)' : section.kind}</td>
                  <td className="num">{groupDigits(section.tensors)}</td>
                  <td className="num" title={`${groupDigits(section.elements)} elements over every name`}>
                    {section.tensors > 0 ? groupDigits(section.parameters) : '—'}
                  </td>
                  <td className="num">{section.tensors > 0 ? formatBytes(section.bytes) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {scalars.length > 0 && (
        <details className="evidence" open={scalars.length <= 8}>
          <summary>Scalars ({scalars.length})</summary>
          <dl className="scalars" data-testid="checkpoint-scalars">
            {scalars.map((scalar) => (
              <div key={scalar.path}>
                <dt className="mono">{scalar.path}</dt>
                <dd className="mono">{scalar.kind === 'string' ? JSON.stringify(scalar.value) : scalar.value}</dd>
              </div>
            ))}
          </dl>
        </details>
      )}
      {checkpoint.tied.length > 0 && (
        <details className="evidence">
          <summary>Tied pairs ({checkpoint.tied.length})</summary>
          <ul>
            {checkpoint.tied.slice(0, 200).map(([a, b]) => (
              <li key={`${a}|${b}`} className="mono">
                {a} = {b}
              </li>
            ))}
          </ul>
        </details>
      )}
      {checkpoint.views.length > 0 && (
        <details className="evidence">
          <summary>Views ({checkpoint.views.length})</summary>
          <ul>
            {checkpoint.views.slice(0, 200).map((name) => (
              <li key={name} className="mono">
                {name}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

function ConvertCard({ header, fileName }: { header: ParsedHeader; fileName: string }) {
  const advice = convertAdvice(fileName, header);
  return (
    <section className="insight checkpoint-convert" aria-label="How to convert safely">
      <h3>How to convert safely</h3>
      {advice.kind === 'refuse' && (
        <p className="safety-verdict risk-dangerous" data-testid="convert-refused">
          {advice.reason}
        </p>
      )}
      {advice.kind === 'no-weights' && <p data-testid="convert-none">{advice.reason}</p>}
      {advice.kind === 'script' && (
        <>
          <div className="code-head">
            <span className="muted">Python, for this file</span>
            <CopyButton text={advice.code} />
          </div>
          <pre className="convert-code" data-testid="convert-script">
            <code>{advice.code}</code>
          </pre>
          {advice.notes.length > 0 && (
            <ul className="convert-notes">
              {advice.notes.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
