/**
 * The analysis registry contract: each analysis is a small pure module over one parsed header.
 * Analyses never do IO; data they need beyond the header (comfy_quant config bytes, config.json) is gathered by
 * the worker first, driven by `tensorBytesWanted`, and handed in through AnalysisInput.
 */
import type { Finding, ParsedHeader } from '../model';
import type { Steps } from '../steps';
import type { VocabularySummary } from './tokenizer/vocabulary';
import type { TokenizerFiles } from './tokenizer/tokenizer-files';
import type { SentenceFiles } from './sentence-model/sentence-files';

/** The files a model's config is read from: transformers' config.json, or the reference code's params.json. */
export type ConfigFile = 'config.json' | 'params.json';

export interface Sidecars {
  /**
   * Parsed `config.json` dropped or fetched alongside the file, if any; or a `params.json` mapped onto config.json's
   * field names (native-params.ts), which `configFile` then says.
   */
  config?: unknown;
  /** The file `config` was read from when it is not config.json: `params.json`. */
  configFile?: ConfigFile;
  /** Parsed `adapter_config.json`, if any. */
  adapterConfig?: unknown;
  /** tokenizer_config.json, chat_template.jinja, chat_template.json, generation_config.json, as far as read. */
  tokenizer?: TokenizerFiles;
  /** tokenizer.json summarized (tokenizer/vocabulary.ts), once the user asked for it. */
  vocabulary?: VocabularySummary;
  /** Why tokenizer.json was not summarized, when it was asked for and could not be. */
  vocabularyProblem?: string;
  /** transformers' trainer_state.json beside the model: its path and parsed value (non-finite numbers kept). */
  trainerState?: { file: string; state: unknown };
  /** A sentence-transformers folder's modules.json and the module configs beside it (sentence-model/). */
  sentenceTransformers?: SentenceFiles;
  /** transformers' training_args.bin beside it: its path and each TrainingArguments field as text. */
  trainingArgs?: { file: string; fields: Record<string, string> };
}

export interface AnalysisInput {
  header: ParsedHeader;
  /** Tensor names in row order, decoded once and shared by every analysis. */
  names: readonly string[];
  /** The source's file name (analyses may compare claims in the name with what the header says). */
  fileName: string;
  sidecars: Sidecars;
  /** Data bytes of small tensors that an analysis asked for, keyed by row index. */
  tensorBytes: ReadonlyMap<number, Uint8Array>;
  /**
   * True when some rows asked for were left unread on purpose (the remote read budget, io/analysis-spans.ts, or
   * the registry's caps): an analysis then words its verdict as a sample (sampling.ts). A wanted row missing
   * while this is false failed to arrive.
   */
  tensorBytesSampled?: boolean;
}

export interface AnalysisOutput<Section> {
  /** The analysis' report section, or null when it has nothing to say about this file. */
  section: Section | null;
  findings: Finding[];
}

export interface Analysis<Id extends string = string, Section = unknown> {
  id: Id;
  /** Row indices whose data bytes this analysis needs (each must be small); empty for header-only analyses. */
  tensorBytesWanted?: (header: ParsedHeader, names: readonly string[]) => number[];
  /**
   * True when the output depends on `sidecars`: only these run again when a sidecar is read after the load (the
   * config.json beside a URL, read on demand), so the others' work is not repeated.
   */
  readsSidecars?: boolean;
  run: (input: AnalysisInput) => AnalysisOutput<Section>;
  /**
   * The same output as `run`, built in steps (core/steps.ts): a view analysis whose build grows with the rows
   * offers it, and the worker runs it in slices so a new load's messages are not held behind it.
   */
  steps?: (input: AnalysisInput) => Steps<AnalysisOutput<Section>>;
}

/**
 * The analyses that build what one tab shows rather than the report (the Modules tab's tree, the Tensors tab's
 * column widths): the worker runs them after the report is posted, so the complete report never waits for them.
 * Kept here, away from the analyses themselves, because the page reads it too.
 */
export const VIEW_SECTIONS: readonly string[] = ['moduleTree', 'tableWidths'];
/** View sections that only lay out the page (column widths in characters), not facts about the file: no report has them. */
export const LAYOUT_SECTIONS: readonly string[] = ['tableWidths'];
