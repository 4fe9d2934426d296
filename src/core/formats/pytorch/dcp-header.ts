/**
 * The parsed header of a PyTorch Distributed Checkpoint's `.metadata` (dcp-metadata.ts reads its pickle): the tensors
 * of the saved state dict in the common columnar model, its sections (the model's weights, the optimizer's state, the
 * rest) so parameters count the weights once, the `dcp` section with every chunk's file, and findings on the
 * checkpoint (what it is and how to convert it, chunks with no file, chunks that do not cover their tensor) and on the
 * pickle's safety: a pickle that imports only DCP's own classes gets no safety warning, anything else the checks
 * every pickle gets.
 */
import { makeFinding } from '../../findings/make-finding';
import { formatBytes } from '../../number-format';
import { listNames, plural } from '../../parse/message-format';
import { MAX_NAMES_IN_MESSAGE } from '../../limits';
import { product } from '../../analysis/values';
import { tensorElements } from './storage-count';
import type { Finding, ParsedHeader } from '../../model';
import { EMA_KEYS, OPTIMIZER_KEYS, SCHEDULER_KEYS, type CheckpointSection, type NamedTensor } from './anatomy';
import type { CheckpointSummary, PickleSummary } from './checkpoint-types';
import { MAX_CHECKPOINT_TENSORS } from './checkpoint-limits';
import { buildTensorColumns, checkpointHeader } from './columns';
import { isDcpAllowedGlobal, readDcpMetadata, type DcpChunk, type DcpSummary } from './dcp-metadata';
import { pickleSummary, safetyFindings, type PickleStream } from './pickle-summary';

/** Top-level state-dict keys of training state that is neither weights, optimizer, scheduler nor EMA. */
const OTHER_STATE_KEYS = /^(dataloader|train_state|rng|rng_state|extra_state|trainer)$/i;

interface DcpSections {
  sections: CheckpointSection[];
  weights: string | null;
  weightsPrefix: string;
  modelElements: number[];
}

/**
 * A flattened state dict's sections, by the first part of each name: the optimizer's, a scheduler's, EMA weights and
 * other training state go apart; the rest are the weights, at the root. Their names are kept whole: a `model.` start
 * may be DCP's flattening of `{'model': …}` or the model's own (Hugging Face's `model.layers.…`), which the names
 * alone cannot tell apart.
 */
function dcpSections(tensors: readonly NamedTensor[], rows: readonly DcpChunk[][]): DcpSections {
  const firstPart = (name: string) => name.split('.')[0];
  const kindOf = (part: string): CheckpointSection['kind'] | null =>
    OPTIMIZER_KEYS.test(part)
      ? 'optimizer'
      : SCHEDULER_KEYS.test(part)
        ? 'scheduler'
        : EMA_KEYS.test(part)
          ? 'ema'
          : OTHER_STATE_KEYS.test(part)
            ? 'other'
            : null;
  const rest = tensors.filter((entry) => kindOf(firstPart(entry.name)) === null);
  const weights = rest.length === 0 ? null : '';
  const sectionOf = (name: string): string => {
    const part = firstPart(name);
    return kindOf(part) !== null ? part : '';
  };
  const bySection = new Map<string, CheckpointSection>();
  const modelElements = tensors.map((entry, row) => {
    const path = sectionOf(entry.name);
    const kind = path === weights ? 'weights' : (kindOf(path) ?? 'other');
    const section = bySection.get(path) ?? {
      path,
      kind,
      tensors: 0,
      bytes: 0,
      elements: 0,
      parameters: 0,
      shared: 0,
    };
    const elements = tensorElements(entry.tensor);
    section.tensors++;
    section.bytes += rows[row].reduce((total, chunk) => total + chunk.length, 0);
    section.elements += elements;
    section.parameters += elements;
    bySection.set(path, section);
    return kind === 'weights' ? elements : 0;
  });
  return { sections: [...bySection.values()], weights, weightsPrefix: '', modelElements };
}

/** Whether the pickle imports only what DCP's writer emits, reaches STOP once, and calls nothing else. */
function importsOwnClassesOnly(stream: PickleStream): boolean {
  const main = stream.main;
  return (
    main !== null &&
    stream.runs.length === 1 &&
    main.complete &&
    main.hazards.length === 0 &&
    stream.dcpCalls?.onlyOwnCalls === true &&
    [...main.globals.values()].every((use) => isDcpAllowedGlobal(use.module, use.name))
  );
}

/** The pickle summary of DCP metadata that imports only DCP's classes: each import named for what it is. */
function ownClassesSummary(pickle: PickleSummary): PickleSummary {
  return {
    ...pickle,
    globals: pickle.globals.map((use) =>
      use.risk === 'safe'
        ? use
        : {
            ...use,
            risk: 'safe',
            reason:
              use.module === 'builtins'
                ? "only to name a member of DCP's memory-format enum"
                : "one of DCP's own metadata classes",
          },
    ),
    dangerous: 0,
    calls: [],
    callsTotal: 0,
  };
}

function namesOf(tensors: readonly NamedTensor[], rows: readonly number[]): string {
  return listNames(
    rows.slice(0, MAX_NAMES_IN_MESSAGE).map((row) => tensors[row].name),
    rows.length,
  );
}

function dcpFindings(summary: DcpSummary, tensors: readonly NamedTensor[]): Finding[] {
  const findings: Finding[] = [
    makeFinding(
      'dcp-metadata',
      `This is the metadata of a PyTorch Distributed Checkpoint (${summary.module}): ${plural(tensors.length, 'tensor')}` +
        `${summary.byteEntries.length > 0 ? ` and ${plural(summary.byteEntries.length, 'bytes entry', 'bytes entries')}` : ''}` +
        ` in ${plural(summary.files.length, '.distcp file')} beside it` +
        `${summary.chunkedTensors > 0 ? `, ${plural(summary.chunkedTensors, 'tensor')} saved in chunks across ranks (${summary.chunks} chunks in all)` : ''}. ` +
        'The weights are in the .distcp files; this file says where. torch.distributed.checkpoint.format_utils.' +
        'dcp_to_torch_save turns the folder into one torch.save file, which safetensors can then convert.',
    ),
  ];
  if (summary.truncated) {
    findings.push(
      makeFinding(
        'checkpoint-walk-truncated',
        `The metadata lists more than ${plural(MAX_CHECKPOINT_TENSORS, 'tensor')}; the tensors shown are the first ones.`,
      ),
    );
  }
  const missing = summary.rows.flatMap((chunks, row) => (chunks.some((chunk) => chunk.file === null) ? [row] : []));
  if (missing.length > 0) {
    findings.push(
      makeFinding(
        'dcp-chunk-without-file',
        `${plural(missing.length, 'tensor has', 'tensors have')} a chunk that storage_data gives no file for ` +
          `(${namesOf(tensors, missing)}): loading the checkpoint would fail on ${missing.length === 1 ? 'it' : 'them'}.`,
        missing,
      ),
    );
  }
  const uncovered = summary.rows.flatMap((chunks, row) => {
    const held = chunks.reduce((total, chunk) => total + product(chunk.sizes), 0);
    return held === tensorElements(tensors[row].tensor) ? [] : [row];
  });
  if (uncovered.length > 0) {
    findings.push(
      makeFinding(
        'dcp-chunks-not-covering',
        `${plural(uncovered.length, "tensor's chunks hold", "tensors' chunks hold")} a different number of elements ` +
          `than the tensor's size (${namesOf(tensors, uncovered)}): a save cut short, or chunks that overlap. ` +
          'Loading would leave part of the tensor unset or fail.',
        uncovered,
      ),
    );
  }
  return findings;
}

export function buildDcpHeader(stream: PickleStream, fileSize: number | null): ParsedHeader {
  const ownClassesOnly = importsOwnClassesOnly(stream);
  const read = readDcpMetadata(stream.main?.root ?? null, ownClassesOnly);
  const { tensors, summary } = read;
  const built = buildTensorColumns(tensors);
  const sectioned = dcpSections(tensors, summary.rows);
  const plain = pickleSummary(stream, tensors);
  const pickle = ownClassesOnly ? ownClassesSummary(plain) : plain;
  const findings = [
    ...dcpFindings(summary, tensors),
    ...(ownClassesOnly ? [] : safetyFindings(pickle, stream.runs, tensors.length)),
  ];
  const checkpoint: CheckpointSummary = {
    weights: sectioned.weights,
    weightsPrefix: sectioned.weightsPrefix,
    sections: sectioned.sections,
    scalars: [],
    tied: [],
    views: [],
    composites: [],
    sharedNames: 0,
    rows: {
      model: sectioned.modelElements,
      storage: tensors.map(() => null),
      offset: tensors.map(() => 0),
      stride: tensors.map((entry) => entry.tensor.stride),
    },
  };
  return {
    ...checkpointHeader({
      built,
      pickle,
      checkpoint,
      fileSize,
      metadata: summary.byteEntries.map((entry) => ({
        key: entry.name,
        value: `bytes (torch.save), ${formatBytes(entry.bytes)} in ${entry.file ?? 'no file storage_data names'}`,
        kind: 'string' as const,
      })),
      dataBytes: summary.files.reduce((total, file) => total + file.bytes, 0),
      findings,
      format: 'pytorch-dcp',
    }),
    dcp: summary,
  };
}
