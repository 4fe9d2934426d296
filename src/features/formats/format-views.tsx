/**
 * What each file format adds to the views, keyed by format: how the verdict names the container and the reference
 * loader, the words it adds to the verdict line, the format's own tab, and where a tensor lies in the details.
 * Views look a format up here instead of branching on it; adding a format is one entry.
 */
import type { ReactNode } from 'react';
import type { FileFormat } from '../../core/formats/sections';
import type { ParsedHeader } from '../../core/model';
import type { AnalysisSections } from '../../core/analysis/analysis-registry';
import type { Panel } from '../../state/view-slice';
import { CheckpointPanel } from '../checkpoint/CheckpointPanel';
import { groupDigits, plural } from '../../core/number-format';
import { checkpointIntegrity, formatLabel, pickleLabel } from '../checkpoint/format-label';
import { GgufPanel } from '../gguf/GgufPanel';
import { GgufTensorFacts } from '../gguf/GgufTensorFacts';
import { CheckpointStorage } from '../table/CheckpointStorage';

/** What a format's own tab is given: the header, the file's name and the analyses' sections. */
export interface FormatTabProps {
  header: ParsedHeader;
  fileName: string;
  sections: AnalysisSections;
}

export interface FormatView {
  /** How the verdict line names the container; null for safetensors, which it does not name. */
  label: string | null;
  /** The label for one file when the format's own words are not enough (a TorchScript archive is a torch zip too). */
  labelFor?: (header: ParsedHeader) => string;
  /** The integrity line, when the format's reference loader is not the safetensors crate. */
  integrity?: (header: ParsedHeader, verdict: 'accepts' | 'refuses') => string | null;
  /** Words the verdict line adds after the container (architecture, name, quant label). */
  verdictWords?: (header: ParsedHeader) => string[];
  /** What the header figure is called. */
  headerLabel: string;
  /** What the data figure is called ("Data bytes" when absent), and its tooltip. */
  dataLabel?: string;
  dataTitle?: (header: ParsedHeader) => string;
  /**
   * False where the header-to-data ratio means nothing: a checkpoint's pickle is not a header over its storages.
   */
  showsHeaderOverhead?: boolean;
  /**
   * The format keeps its key-values in its own tab, with their types (GGUF): the Metadata tab, which lists a
   * safetensors `__metadata__` map of strings, is hidden for it instead of showing "Metadata (0)".
   */
  keysInOwnTab?: boolean;
  /** The format's own tab. */
  tab?: { id: Panel; label: string; render: (props: FormatTabProps) => ReactNode };
  /**
   * Where a tensor lies, for the tensor details. Absent: at data offsets from the file's data start (safetensors,
   * GGUF), shown by the details themselves.
   */
  tensorLocation?: (props: { header: ParsedHeader; row: number }) => ReactNode;
  /** Facts only this format has about a tensor (GGUF's own dimension order). */
  tensorFacts?: (props: { header: ParsedHeader; row: number }) => ReactNode;
}

const CHECKPOINT_VIEW = (format: FileFormat): FormatView => ({
  label: formatLabel(format),
  labelFor: (header) => formatLabel(format, header),
  integrity: (header) => checkpointIntegrity(header),
  headerLabel: pickleLabel(format),
  dataLabel: 'Storage bytes',
  dataTitle: (header) =>
    `${groupDigits(header.dataBytes)} bytes in ${plural(header.pickle?.storages ?? 0, 'storage')}, each counted once however many names point into it`,
  showsHeaderOverhead: false,
  tab: {
    id: 'checkpoint',
    label: 'Checkpoint',
    render: ({ header, fileName, sections }) => (
      <CheckpointPanel header={header} fileName={fileName} optimizers={sections.optimizerState} />
    ),
  },
  tensorLocation: ({ header, row }) => <CheckpointStorage header={header} row={row} />,
});

/**
 * The GGUF reader's notes on a file that is no model to run on its own (core/formats/gguf/file-kinds.ts), and what the
 * integrity line says for each.
 */
const NOT_A_MODEL_INTEGRITY: Readonly<Record<string, string>> = {
  'gguf-vocab-only': '✔ intact, but no weights: nothing in it for llama.cpp to run',
  'gguf-no-tensors': '✔ intact, but no weights: nothing in it for llama.cpp to run',
  'gguf-mmproj': "✔ intact: a multimodal projector, which llama.cpp loads with --mmproj beside a language model's GGUF",
  'gguf-lora-adapter': "✔ intact: a LoRA adapter, which llama.cpp applies with --lora on top of a base model's GGUF",
  'gguf-imatrix': '✔ intact: an importance matrix, which llama-quantize reads with --imatrix; no weights',
  'gguf-control-vector': '✔ intact: a control vector, which llama.cpp adds to a model with --control-vector',
  'gguf-control-vector-refused': "✔ intact as a GGUF, but llama.cpp's --control-vector refuses it",
};
const NOT_A_MODEL_CODES: ReadonlySet<string> = new Set(Object.keys(NOT_A_MODEL_INTEGRITY));

const FORMAT_VIEWS: Readonly<Record<FileFormat, FormatView>> = {
  safetensors: { label: null, headerLabel: 'Header' },
  'pytorch-zip': CHECKPOINT_VIEW('pytorch-zip'),
  'pytorch-legacy': CHECKPOINT_VIEW('pytorch-legacy'),
  pickle: CHECKPOINT_VIEW('pickle'),
  'pytorch-dcp': CHECKPOINT_VIEW('pytorch-dcp'),
  gguf: {
    label: 'GGUF',
    keysInOwnTab: true,
    integrity: (header, verdict) => {
      if (verdict !== 'accepts') {
        return "✖ llama.cpp's loader would refuse this file";
      }
      // Intact, but maybe not a model to run on its own (the reader's notes say when).
      const note = header.findings.find((finding) => NOT_A_MODEL_CODES.has(finding.code))?.code;
      return note === undefined ? "✔ intact: llama.cpp's loader would accept it" : NOT_A_MODEL_INTEGRITY[note];
    },
    verdictWords: (header) => {
      const gguf = header.gguf;
      if (!gguf) {
        return [];
      }
      return [gguf.architecture, gguf.name, gguf.sizeLabel, gguf.fileTypeLabel].filter(
        (word): word is string => word !== null && word !== '',
      );
    },
    headerLabel: 'Header (key-values and tensor infos)',
    tab: { id: 'gguf', label: 'GGUF', render: ({ header }) => <GgufPanel header={header} /> },
    tensorFacts: ({ header, row }) => <GgufTensorFacts header={header} row={row} />,
  },
};

export function formatView(header: ParsedHeader): FormatView {
  return FORMAT_VIEWS[header.format ?? 'safetensors'];
}

/** Every format's own tab, for the tab bar: shown when the loaded file's format has it. */
export const FORMAT_TABS = Object.values(FORMAT_VIEWS)
  .map((view) => view.tab)
  .filter(
    (tab, index, tabs): tab is NonNullable<FormatView['tab']> =>
      tab !== undefined && tabs.findIndex((other) => other?.id === tab.id) === index,
  );
