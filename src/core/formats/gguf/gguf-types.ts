/** What a GGUF file adds to the parsed model (ParsedHeader.gguf) and to the report: small, so it crosses threads. */

export interface GgufKvSummary {
  key: string;
  /** The value type as GGUF names it (`UINT32`, `STRING`, `ARRAY`). */
  type: string;
  /** Arrays: the element type and the element count. */
  elementType?: string;
  count?: number;
  /** Scalars as text; arrays as their first items (ARRAY_SAMPLE_ITEMS of them). */
  value: string;
  /** Arrays: the items kept, as text: the first ARRAY_SAMPLE_ITEMS, or all of a numeric per-layer array (MAX_PER_LAYER_ARRAY_ITEMS). */
  items?: string[];
}

export interface GgufToken {
  id: number;
  /** The token's text; null when the id is past the end of the token list. */
  text: string | null;
}

export interface GgufSpecialToken extends GgufToken {
  /** `bos`, `eos`, `pad`, `unknown`, `eot`, `eom`, `sep`, `cls`, `mask` (the `tokenizer.ggml.*_token_id` keys). */
  role: string;
}

export interface GgufAddedToken extends GgufToken {
  /** `control` or `user-defined` (tokenizer.ggml.token_type 3 and 4). */
  kind: 'control' | 'user-defined';
}

export interface GgufTokenizerSummary {
  /** `tokenizer.ggml.model`: `llama` (SentencePiece), `gpt2` (BPE), `bert`… */
  model: string | null;
  /** `tokenizer.ggml.pre`, the pre-tokenizer id. */
  pre: string | null;
  vocabSize: number;
  merges: number | null;
  special: GgufSpecialToken[];
  /** Control and user-defined tokens, the first MAX_LISTED_TOKENS of them. */
  added: GgufAddedToken[];
  addedCount: number;
  /** Where the token list lies in the header bytes, so the worker can page it (never sent as a whole). */
  tokens: { start: number; count: number };
  /** How many tokens of each `tokenizer.ggml.token_type` (normal, control, byte…), in type order; [] without types. */
  types: Array<{ type: string; count: number }>;
  /** Where `tokenizer.ggml.merges` lies in the header bytes, for the token-by-token comparison; null without it. */
  mergeList: { start: number; count: number } | null;
  /** Where `tokenizer.ggml.token_type` (32-bit integers) and `.scores` (f32) lie in the header bytes; null without. */
  typeList: { start: number; count: number } | null;
  scoreList: { start: number; count: number } | null;
  /** `tokenizer.ggml.add_bos_token`, `add_eos_token`, `add_space_prefix`: null when the file does not say. */
  addBos: boolean | null;
  addEos: boolean | null;
  addSpacePrefix: boolean | null;
  /** `tokenizer.ggml.remove_extra_whitespaces` (null: not said). */
  removeExtraWhitespaces: boolean | null;
  /** Whether `tokenizer.ggml.precompiled_charsmap` holds a normalizer (a SentencePiece Unigram's, as T5's). */
  charsmap: boolean;
}

export interface GgufQuantMixEntry {
  /** The ggml type name (`Q4_K`), or `ggml type N` for an unknown id. */
  type: string;
  tensors: number;
  bytes: number;
  elements: number;
  /** Bytes × 8 / elements, block scales included. */
  bitsPerWeight: number;
}

export interface GgufSummary {
  version: number;
  littleEndian: boolean;
  kvCount: number;
  tensorCount: number;
  alignment: number;
  /** File offset of the first tensor byte: the end of the tensor infos, padded to the alignment. */
  dataStart: number;
  architecture: string | null;
  name: string | null;
  sizeLabel: string | null;
  /** `general.file_type` and its llama.cpp label (`Q4_K_M`). */
  fileType: number | null;
  fileTypeLabel: string | null;
  contextLength: number | null;
  blockCount: number | null;
  kvs: GgufKvSummary[];
  tokenizer: GgufTokenizerSummary | null;
  chatTemplate: string | null;
  /** Per ggml type, most bytes first: the real mix behind the file-type label. */
  quantMix: GgufQuantMixEntry[];
  /** `split.no` (0-based), `split.count`, `split.tensors.count` of a split set's member. */
  split: { no: number; count: number; tensors: number | null } | null;
  /**
   * A multimodal projector's facts (general.architecture `clip`): its encoders (`clip.has_vision_encoder`,
   * `clip.has_audio_encoder`) and projector type; null for any other architecture.
   */
  mmproj: { vision: boolean; audio: boolean; projector: string | null } | null;
  /** `general.type`: `model` when written, `adapter`, `imatrix`, …; null when the file does not say. */
  type: string | null;
  /**
   * A LoRA adapter's facts (general.type `adapter`, as convert_lora_to_gguf.py writes): `adapter.type` (`lora`, or
   * `alora` for an activated LoRA), `adapter.lora.alpha`, `adapter.lora.task_name` and how many
   * `adapter.alora.invocation_tokens`; null for any other file.
   */
  adapter: {
    type: string | null;
    alpha: number | null;
    taskName: string | null;
    invocationTokens: number | null;
  } | null;
  /**
   * An importance matrix's facts (general.type `imatrix`, as llama-imatrix writes): `imatrix.chunk_count`,
   * `imatrix.chunk_size` (tokens per chunk) and the first `imatrix.datasets`; null for any other file.
   */
  imatrix: { chunkCount: number | null; chunkSize: number | null; datasets: string[]; datasetCount: number } | null;
  /**
   * A control vector's facts (general.architecture `controlvector`, as repeng's export_gguf writes):
   * `controlvector.model_hint` (the architecture it was made for) and `controlvector.layer_count`; null otherwise.
   */
  controlVector: { modelHint: string | null; layerCount: number | null } | null;
}
