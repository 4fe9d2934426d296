/**
 * The exported JSON report (docs/report-schema.md). Pure: everything it needs is passed in, so the same report
 * comes out of the UI, tests and scripts. Findings carry tensor names here (the UI works with row indices).
 */
import {
  allTensorNames,
  allMetadataTexts,
  referenceLoaderVerdict,
  type Finding,
  type MetadataColumns,
  type ParseOutcome,
  type ParsedHeader,
} from '../model';
import { ggufReport } from '../formats/gguf/report';
import type { FileFormat } from '../formats/sections';
import type { NetworkFigures } from '../result';
import { computeTotals, type HeaderTotals } from '../stats';
import { headlineParameters, parameterFigure, type ParameterFigure } from '../analysis/parameters';
import type { QuantizationSection } from '../analysis/report-sections';

const REPORT_SCHEMA_VERSION = 1;

export interface ReportSource {
  kind: 'file' | 'url' | 'files' | 'repo';
  name: string;
  /** Only for remote sources; never contains a token. */
  url?: string;
}

export interface ReportFinding {
  code: string;
  severity: Finding['severity'];
  message: string;
  tensors: string[];
  tensorCount: number;
  refusedByReference: boolean;
  shard?: string;
}

export interface Report {
  schemaVersion: number;
  generator: string;
  source: ReportSource;
  /**
   * The container the header was read from: safetensors, a PyTorch checkpoint (zip, legacy stream, bare pickle), a
   * Distributed Checkpoint's .metadata, or GGUF.
   */
  format: FileFormat;
  file: {
    size: number | null;
    headerLength: number | null;
    /** File offset of the first tensor byte (8 + headerLength for safetensors); null when rejected. */
    dataStart: number | null;
    dataBytes: number | null;
    bytesRead: number;
    /** Of bytesRead, what Read values, Scan all values and Compare values read; absent before any. */
    valuesBytesRead?: number;
    /** Present when the tensor data is stored big-endian (values are swapped as read); absent: little-endian. */
    byteOrder?: 'big-endian';
  };
  network?: NetworkFigures;
  tensors: HeaderTotals & { count: number };
  /** The headline figure: the model's parameters (each storage once), every tensor's stored elements, and how. */
  parameters?: ParameterFigure;
  /** `__metadata__` as key → value text; null when absent or JSON null. */
  metadata: Record<string, string> | null;
  findings: ReportFinding[];
  referenceLoader: 'accepts' | 'refuses';
  [section: string]: unknown;
}

export interface ReportInput {
  source: ReportSource;
  outcome: ParseOutcome;
  bytesRead: number;
  valuesBytesRead?: number;
  network?: NetworkFigures;
  /** Extra findings (analyses, shards) on top of the parser's. */
  extraFindings?: readonly Finding[];
  /** Extra sections from analyses (quantization, architecture, lora, shards, …), added verbatim. */
  sections?: Record<string, unknown>;
  names?: readonly string[];
  /** Totals the worker already computed for this header; computed here only when absent. */
  totals?: HeaderTotals;
}

/** Each format's own report sections, keyed by report key: undefined when the file has none. */
const FORMAT_REPORT_SECTIONS: Readonly<Record<string, (parsed: ParsedHeader) => unknown>> = {
  pickle: (parsed) => {
    if (!parsed.pickle) {
      return undefined;
    }
    const { weightsOnly, globals, dangerous, hazards, calls, callsTotal, opcodes, storages, protocol, pickleBytes } =
      parsed.pickle;
    return { weightsOnly, globals, dangerous, hazards, calls, callsTotal, opcodes, storages, protocol, pickleBytes };
  },
  checkpoint: (parsed) => {
    if (!parsed.checkpoint) {
      return undefined;
    }
    // Per-row storage details stay on screen; the report keeps the checkpoint's summary.
    const { rows, members, legacyStorages, moduleBuffers, ...summary } = parsed.checkpoint;
    void rows;
    void members;
    void legacyStorages;
    // Which rows they are is in the registered-buffers finding; the report's quantization.buffers counts them.
    void moduleBuffers;
    return summary;
  },
  dcp: (parsed) => {
    if (!parsed.dcp) {
      return undefined;
    }
    // Each tensor's chunks stay on screen (its details); the report keeps the files and counts.
    const { rows, ...summary } = parsed.dcp;
    void rows;
    return summary;
  },
  gguf: (parsed) => (parsed.gguf ? ggufReport(parsed.gguf) : undefined),
};

export function buildReport(input: ReportInput): Report {
  const { outcome } = input;
  const parsed = outcome.kind === 'parsed' ? outcome.header : null;
  const names = parsed ? (input.names ?? allTensorNames(parsed.tensors)) : [];
  const findings = [...(parsed ? parsed.findings : outcome.kind === 'rejected' ? outcome.file.findings : [])];
  findings.push(...(input.extraFindings ?? []));
  const totals = parsed
    ? (input.totals ?? computeTotals(parsed.tensors, parsed.unknownDtypes, parsed.shadowedRows))
    : { tensors: 0, elements: 0, bytes: 0, byDtype: {} };
  const report: Report = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generator: 'Safetensors Lens',
    source: input.source,
    format:
      parsed?.format ?? (findings.some((finding) => finding.code === 'zip-unreadable') ? 'pytorch-zip' : 'safetensors'),
    file: {
      size: parsed ? parsed.fileSize : outcome.kind === 'rejected' ? outcome.file.fileSize : null,
      headerLength: parsed ? parsed.headerLength : outcome.kind === 'rejected' ? outcome.file.headerLength : null,
      dataStart: parsed ? parsed.dataStart : null,
      dataBytes: parsed ? parsed.dataBytes : null,
      bytesRead: input.bytesRead,
      ...(input.valuesBytesRead ? { valuesBytesRead: input.valuesBytesRead } : {}),
      ...(parsed?.byteOrder && { byteOrder: parsed.byteOrder }),
    },
    tensors: { ...totals, count: totals.tensors },
    ...(parsed
      ? {
          parameters: parameterFigure(
            headlineParameters(parsed, totals, input.sections?.quantization as QuantizationSection | undefined),
          ),
        }
      : {}),
    metadata: parsed && parsed.metadataState === 'object' ? metadataRecord(parsed.metadata) : null,
    findings: findings.map((finding) => ({
      code: finding.code,
      severity: finding.severity,
      message: finding.message,
      tensors: finding.tensors.map((row) => names[row] ?? `#${row}`),
      tensorCount: finding.tensorCount,
      refusedByReference: finding.refusedByReference,
      ...(finding.shard !== undefined ? { shard: finding.shard } : {}),
    })),
    referenceLoader: referenceLoaderVerdict(findings),
  };
  if (input.network) {
    report.network = input.network;
  }
  if (parsed) {
    for (const [key, section] of Object.entries(FORMAT_REPORT_SECTIONS)) {
      const value = section(parsed);
      if (value !== undefined) {
        report[key] = value;
      }
    }
  }
  for (const [key, value] of Object.entries(input.sections ?? {})) {
    if (value !== undefined && value !== null) {
      report[key] = value;
    }
  }
  return report;
}

/** Object.fromEntries defines own properties, so keys like `__proto__` stay plain data. */
function metadataRecord(metadata: MetadataColumns): Record<string, string> {
  const texts = allMetadataTexts(metadata);
  return Object.fromEntries(
    Array.from({ length: metadata.count }, (_, entry) => [texts[2 * entry], texts[2 * entry + 1]]),
  );
}
