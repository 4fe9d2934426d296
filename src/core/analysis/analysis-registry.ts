/**
 * The insight analyses the worker runs after parsing, and the two entry points it calls:
 * `tensorBytesWanted` (which small tensors' data to fetch first, capped) and `runAnalyses` (every analysis over
 * the header plus those bytes). An analysis that throws on a hostile header costs only its own section: the
 * others still run and a finding says which one failed.
 */
import { makeFinding } from '../findings/make-finding';
import type { Finding, ParsedHeader } from '../model';
import { architectureAnalysis } from './architecture';
import { dataReadsAnalysis, type DataReadsSection } from './data-reads';
import { MAX_WANTED_BYTES, MAX_WANTED_TENSOR_BYTES, MAX_WANTED_TENSORS } from './analysis-limits';
import { loraAnalysis } from './lora';
import { memoryAnalysis } from './memory/memory';
import type { MemorySection } from './memory/memory-types';
import { metadataInsightsAnalysis } from './metadata-insights';
import { moduleTreeAnalysis } from './module-tree';
import { optimizerStateAnalysis, type OptimizerStateSection } from './optimizer-state';
import type { TrainingRunSection } from './training-run/trainer-state';
import { trainingRunAnalysis } from './training-run/training-run';
import { quantizationAnalysis } from './quantization';
import type {
  ArchitectureSection,
  LoraSection,
  MetadataInsightsSection,
  ModuleTreeSection,
  QuantizationSection,
  TableWidthsSection,
} from './report-sections';
import { tableWidthsAnalysis } from './table-widths';
import { tensorIndex } from './tensor-index';
import { sentenceModelAnalysis } from './sentence-model/sentence-model';
import { textualInversionAnalysis, type TextualInversionSection } from './textual-inversion';
import type { SentenceModelSection } from './sentence-model/sentence-model-types';
import { tokenizerAnalysis } from './tokenizer/tokenizer';
import type { TokenizerSection } from './tokenizer/tokenizer-types';
import { VIEW_SECTIONS, type Analysis, type AnalysisInput } from './analysis-types';
import { runSteps, type Steps } from '../steps';

export interface AnalysisSections {
  quantization?: QuantizationSection;
  architecture?: ArchitectureSection;
  lora?: LoraSection;
  metadataInsights?: MetadataInsightsSection;
  moduleTree?: ModuleTreeSection;
  tableWidths?: TableWidthsSection;
  memory?: MemorySection;
  dataReads?: DataReadsSection;
  tokenizer?: TokenizerSection;
  optimizerState?: OptimizerStateSection;
  trainingRun?: TrainingRunSection;
  sentenceModel?: SentenceModelSection;
  textualInversion?: TextualInversionSection;
}

type SectionId = keyof AnalysisSections;

export const ANALYSES: ReadonlyArray<Analysis<SectionId, AnalysisSections[SectionId]>> = [
  quantizationAnalysis,
  architectureAnalysis,
  loraAnalysis,
  metadataInsightsAnalysis,
  tableWidthsAnalysis,
  moduleTreeAnalysis,
  memoryAnalysis,
  dataReadsAnalysis,
  tokenizerAnalysis,
  optimizerStateAnalysis,
  trainingRunAnalysis,
  sentenceModelAnalysis,
  textualInversionAnalysis,
];

/**
 * Rows whose data bytes the analyses need, in analysis order, deduplicated and capped: at most
 * MAX_WANTED_TENSORS rows, MAX_WANTED_BYTES in total, none larger than MAX_WANTED_TENSOR_BYTES.
 */
export function tensorBytesWanted(header: ParsedHeader, names: readonly string[]): number[] {
  return tensorBytesRequest(header, names).rows;
}

/**
 * `rows` as tensorBytesWanted gives them, and `capped`: true when the caps left some asked rows out, so what the
 * analyses get is a sample (AnalysisInput.tensorBytesSampled).
 */
export function tensorBytesRequest(
  header: ParsedHeader,
  names: readonly string[],
): { rows: number[]; capped: boolean } {
  const index = tensorIndex(header, names);
  const seen = new Set<number>();
  const rows: number[] = [];
  let bytes = 0;
  for (const analysis of ANALYSES) {
    if (!analysis.tensorBytesWanted) {
      continue;
    }
    let wanted: number[];
    try {
      wanted = analysis.tensorBytesWanted(header, names);
    } catch {
      continue;
    }
    for (const row of wanted) {
      if (seen.has(row) || row < 0 || row >= index.count) {
        continue;
      }
      const size = index.bytes(row);
      if (!Number.isFinite(size) || size > MAX_WANTED_TENSOR_BYTES) {
        continue;
      }
      if (rows.length >= MAX_WANTED_TENSORS || bytes + size > MAX_WANTED_BYTES) {
        return { rows, capped: true };
      }
      seen.add(row);
      rows.push(row);
      bytes += size;
    }
  }
  return { rows, capped: false };
}

/** What one run of the analyses gave: sections, findings, and each analysis' own share of the findings. */
export interface AnalysisRun {
  sections: AnalysisSections;
  findings: Finding[];
  /** Kept so a partial re-run (rerunSidecarAnalyses) replaces only the findings of the analyses it ran again. */
  findingsByAnalysis: Partial<Record<SectionId, Finding[]>>;
}

export function runAnalyses(
  input: AnalysisInput,
  /** Called after each analysis, for the benchmark's timeline. */
  onDone?: (id: SectionId) => void,
): AnalysisRun {
  return runViewAnalyses(runReportAnalyses(input, onDone), input, onDone);
}

/** The analyses the report needs (every one but the views), as the worker runs them before posting the report. */
export function runReportAnalyses(input: AnalysisInput, onDone?: (id: SectionId) => void): AnalysisRun {
  return runSome(input, (analysis) => !VIEW_SECTIONS.includes(analysis.id), null, onDone);
}

/** The view analyses' ids (VIEW_SECTIONS) in the order the registry runs them. */
export const VIEW_ANALYSIS_ORDER: readonly SectionId[] = ANALYSES.filter((analysis) =>
  VIEW_SECTIONS.includes(analysis.id),
).map((analysis) => analysis.id);

/** The view analyses (VIEW_SECTIONS) over `input`, added to `report`, the run of the report's analyses. */
export function runViewAnalyses(
  report: AnalysisRun,
  input: AnalysisInput,
  onDone?: (id: SectionId) => void,
): AnalysisRun {
  return runSteps(viewAnalysesSteps(report, input, onDone));
}

/**
 * runViewAnalyses in steps (core/steps.ts), a pause point after each view and inside those that offer `steps`: the
 * worker runs them in slices, so a load the page has let go of stops at the next step and a new load's messages
 * are not held behind a large tree.
 */
export function viewAnalysesSteps(
  report: AnalysisRun,
  input: AnalysisInput,
  onDone?: (id: SectionId) => void,
): Steps<AnalysisRun> {
  return runSomeSteps(input, (analysis) => VIEW_SECTIONS.includes(analysis.id), report, onDone);
}

/**
 * `previous` with the analyses that read sidecars run again over `input`, whose sidecars have changed (a
 * config.json read on demand after the load); the header-only analyses keep their sections and findings.
 */
export function rerunSidecarAnalyses(previous: AnalysisRun, input: AnalysisInput): AnalysisRun {
  return runSome(input, (analysis) => analysis.readsSidecars === true, previous);
}

function runSome(
  input: AnalysisInput,
  runs: (analysis: (typeof ANALYSES)[number]) => boolean,
  previous: AnalysisRun | null,
  onDone?: (id: SectionId) => void,
): AnalysisRun {
  return runSteps(runSomeSteps(input, runs, previous, onDone));
}

/** runSome in steps: an analysis that offers `steps` runs through them, the others in one go. */
function* runSomeSteps(
  input: AnalysisInput,
  runs: (analysis: (typeof ANALYSES)[number]) => boolean,
  previous: AnalysisRun | null,
  onDone?: (id: SectionId) => void,
): Steps<AnalysisRun> {
  const sections: AnalysisSections = {};
  const findingsByAnalysis: Partial<Record<SectionId, Finding[]>> = {};
  for (const analysis of ANALYSES) {
    if (!runs(analysis)) {
      if (!previous) {
        continue;
      }
      if (previous.sections[analysis.id] !== undefined) {
        (sections as Record<SectionId, unknown>)[analysis.id] = previous.sections[analysis.id];
      }
      findingsByAnalysis[analysis.id] = previous.findingsByAnalysis[analysis.id] ?? [];
      continue;
    }
    try {
      const output = analysis.steps ? yield* analysis.steps(input) : analysis.run(input);
      onDone?.(analysis.id);
      yield;
      if (output.section !== null) {
        (sections as Record<SectionId, unknown>)[analysis.id] = output.section;
      }
      findingsByAnalysis[analysis.id] = output.findings;
    } catch (error) {
      findingsByAnalysis[analysis.id] = [
        makeFinding(
          'analysis-failed',
          `The ${analysis.id} analysis stopped on this header (${error instanceof Error ? error.message : String(error)}); its section is missing. The rest of the report is unaffected.`,
        ),
      ];
    }
  }
  const findings = ANALYSES.flatMap((analysis) => findingsByAnalysis[analysis.id] ?? []);
  return { sections, findings, findingsByAnalysis };
}
