/**
 * A repository's GGUF files, one row per quant (a split set is one row): size, bits per weight and whether it fits
 * the chosen GPU at the chosen context, sized from the open model's header (core/shards/gguf-listing-basis.ts) and
 * the listing's names and sizes (core/shards/gguf-repo-files.ts). One click opens a quant (its first part, for a
 * split set) through the repository, so this list stays.
 */
import { useMemo } from 'react';
import { ggufListingBasis } from '../../core/shards/gguf-listing-basis';
import { ggufQuantRows, type GgufQuantRow } from '../../core/shards/gguf-repo-files';
import type { LoadResult, RepoInfo } from '../../core/result';
import { formatBytes, formatCount, groupDigits, plural } from '../../core/number-format';
import { useAppStore } from '../../state/store';
import { exactBytes, formatGiB } from '../memory/format-memory';
import { CONTEXT_PRESETS, MAX_CONTEXT_TOKENS } from '../memory/MemoryInputs';
import { numeric, TableHead } from '../../lib/TableHead';
import { FitGpuSelect, shortGpuName } from '../memory/FitGpuSelect';

const KIND_LABELS: Readonly<Record<GgufQuantRow['kind'], string>> = {
  model: '',
  mmproj: 'vision projector',
  adapter: 'LoRA adapter',
  imatrix: 'importance matrix',
};

export function GgufRepoFiles({ result, repo }: { result: LoadResult; repo: RepoInfo }) {
  const fitTarget = useAppStore((state) => state.fitTarget);
  const setFitTarget = useAppStore((state) => state.setFitTarget);
  const switchModel = useAppStore((state) => state.switchModel);
  const header = result.outcome.kind === 'parsed' ? result.outcome.header : null;
  const basis = useMemo(
    () => ggufListingBasis(header, result.sections.memory, result.source.name),
    [header, result.sections.memory, result.source.name],
  );
  const cost = useMemo(() => basis.costAt?.(fitTarget.contextTokens) ?? null, [basis, fitTarget.contextTokens]);
  const rows = useMemo(
    () =>
      ggufQuantRows(repo.ggufFiles, {
        params: basis.params,
        gpuBytes: fitTarget.gpuBytes,
        contextTokens: fitTarget.contextTokens,
        expertShares: basis.expertShares,
        ...(cost && { kvBytes: () => cost.kvBytes, overheadBytes: cost.overheadBytes }),
      }),
    [repo.ggufFiles, basis.params, basis.expertShares, fitTarget, cost],
  );
  if (rows.length === 0) {
    return null;
  }
  const models = rows.filter((row) => row.kind === 'model');
  const fitting = models.filter((row) => row.fit?.fits).length;
  const withCpuMoe = models.filter((row) => row.fit?.cpuMoe).length;
  const openPath = result.choices?.selected;
  const gpuShort = shortGpuName(fitTarget.gpuName);
  const contextText = `${groupDigits(fitTarget.contextTokens)} tokens`;
  return (
    <details className="repo-files gguf-repo-files" data-testid="gguf-repo-files" open={header?.format === 'gguf'}>
      <summary>
        GGUF files in <strong>{repo.display}</strong>:{' '}
        {models.length > 0 ? plural(models.length, 'quant') : plural(rows.length, 'file')}
        {cost && models.length > 0 && `, ${groupDigits(fitting)} fit ${gpuShort} at ${contextText}`}
        {cost && withCpuMoe > 0 && `, ${groupDigits(withCpuMoe)} more with experts in RAM (--n-cpu-moe)`}
      </summary>
      {/* A repository of adapters or projectors only: no model to fit on a GPU. */}
      {models.length > 0 && (
        <>
          <div className="gguf-fit-inputs">
            <FitGpuSelect testId="gguf-fit-gpu" />
            <label>
              Context (tokens){' '}
              <input
                type="number"
                min={1}
                max={MAX_CONTEXT_TOKENS}
                value={fitTarget.contextTokens}
                data-testid="gguf-fit-context"
                onChange={(event) => {
                  const value = Math.floor(Number(event.target.value));
                  if (event.target.value.trim() !== '' && Number.isFinite(value)) {
                    setFitTarget({ contextTokens: Math.min(MAX_CONTEXT_TOKENS, Math.max(1, value)) });
                  }
                }}
              />
            </label>
            <span className="memory-presets" role="group" aria-label="Context presets for the GGUF list">
              {CONTEXT_PRESETS.map(([label, value]) => (
                <button
                  key={label}
                  type="button"
                  aria-pressed={fitTarget.contextTokens === value}
                  onClick={() => setFitTarget({ contextTokens: value })}
                >
                  {label}
                </button>
              ))}
            </span>
          </div>
          <p className="muted gguf-fit-basis" data-testid="gguf-fit-basis">
            {basis.params !== null
              ? `Bits per weight: file bytes × 8 / ${formatCount(basis.params)} parameters (${groupDigits(basis.params)}, from ${basis.paramsSource}); the file's few MB of header count too.`
              : "Parameter count unknown (nothing open says it): bits per weight are each quant's nominal figure from llama-quantize, marked ≈."}{' '}
            Fits: {basis.costSource}
            {cost
              ? `: KV cache ${formatGiB(cost.kvBytes)} at ${contextText}${cost.overheadBytes > 0 ? `, compute buffers ${formatGiB(cost.overheadBytes)}` : ''}.`
              : '.'}
            {basis.expertShares &&
              ` A mixture of experts that does not fit whole is offered the fewest layers whose routed experts (ffn_*_exps) llama.cpp's --n-cpu-moe would keep in RAM, each quant taken to hold its experts in the same share of its file as the open one (≈; the Memory tab gives the open quant's exact split).`}
          </p>
        </>
      )}
      <table className="plain-table gguf-quant-table" aria-label="GGUF files">
        <TableHead
          columns={[
            'Quant',
            numeric('Size'),
            numeric('Bits / weight'),
            `Fits ${gpuShort} at ${contextText}`,
            'File',
            '',
          ]}
        />
        <tbody>
          {rows.map((row) => (
            <QuantRow
              key={row.path}
              row={row}
              isOpen={openPath === row.path}
              gpuBytes={fitTarget.gpuBytes}
              onOpen={() => void switchModel(row.path)}
            />
          ))}
        </tbody>
      </table>
    </details>
  );
}

function QuantRow({
  row,
  isOpen,
  gpuBytes,
  onOpen,
}: {
  row: GgufQuantRow;
  isOpen: boolean;
  gpuBytes: number;
  onOpen: () => void;
}) {
  const fileName = row.path.split('/').at(-1) ?? row.path;
  const incomplete = row.missingShards.length > 0;
  return (
    <tr data-path={row.path} data-quant={row.quant ?? ''} className={isOpen ? 'open' : undefined}>
      <th scope="row">
        {row.label}
        {row.kind !== 'model' && <span className="muted"> ({KIND_LABELS[row.kind]})</span>}
      </th>
      <td className="num" title={row.bytes !== null ? exactBytes(row.bytes) : undefined}>
        {row.bytes !== null ? formatBytes(row.bytes) : '—'}
      </td>
      <td
        className="num"
        title={
          row.bitsPerWeightSource === 'nominal'
            ? "llama-quantize's nominal figure for this quant: the parameter count is unknown"
            : undefined
        }
      >
        {row.bitsPerWeight === null
          ? '—'
          : `${row.bitsPerWeightSource === 'nominal' ? '≈' : ''}${row.bitsPerWeight.toFixed(2)}`}
      </td>
      <FitCell row={row} gpuBytes={gpuBytes} />
      <td className="gguf-file-name" title={row.paths.join('\n')}>
        {row.shards > 1 ? `${fileName} (${plural(row.shards, 'part')}` : fileName}
        {row.shards > 1 && (incomplete ? `, ${plural(row.missingShards.length, 'part')} missing)` : ')')}
      </td>
      <td>
        {isOpen ? (
          <span className="muted">open</span>
        ) : (
          <button
            type="button"
            className="link-button"
            aria-label={`Open ${row.label}${row.shards > 1 ? ' (its first part)' : ''}`}
            onClick={onOpen}
          >
            Open
          </button>
        )}
      </td>
    </tr>
  );
}

function FitCell({ row, gpuBytes }: { row: GgufQuantRow; gpuBytes: number }) {
  if (row.kind !== 'model') {
    return <td className="muted">not a model</td>;
  }
  if (!row.fit) {
    return <td className="muted">{row.bytes === null ? 'size unknown' : 'unknown layout'}</td>;
  }
  const { fit } = row;
  const title = `${exactBytes(fit.neededBytes)} needed (file + ${exactBytes(fit.kvBytes)} KV cache${fit.neededBytes - fit.kvBytes - (row.bytes ?? 0) > 0 ? ' + compute buffers' : ''}) of ${exactBytes(gpuBytes)}`;
  const { cpuMoe } = fit;
  return (
    <td className={fit.fits ? 'gguf-fits' : 'gguf-no-fit'} title={title} data-testid="gguf-fit">
      {fit.fits
        ? `✔ fits, ${formatGiB(fit.spareBytes)} spare`
        : `✖ needs ${formatGiB(fit.neededBytes)} of ${formatGiB(gpuBytes)}`}
      {cpuMoe && (
        <span className="gguf-fit-cpu-moe" data-testid="gguf-fit-cpu-moe">
          {`; fits with ${cpuMoe.all ? '--cpu-moe' : `--n-cpu-moe ${cpuMoe.layers}`}: ≈ ${formatGiB(cpuMoe.ramBytes)} of experts in RAM, ${formatGiB(cpuMoe.spareBytes)} spare`}
        </span>
      )}
      {fit.cpuMoeNeededBytes !== null && (
        <span data-testid="gguf-fit-cpu-moe">{`; even --cpu-moe needs ≈ ${formatGiB(fit.cpuMoeNeededBytes)}`}</span>
      )}
    </td>
  );
}
