/** Caps for the insight analyses: each keeps a report section small and its work bounded on hostile headers. */

/** Module names listed per layer list (quantized / high-precision); the count stays exact. */
export const MAX_LAYER_NAMES = 200;

/** Example layer names kept per distinct per-layer quantization config. */
export const MAX_CONFIG_EXAMPLES = 8;

/** Tensors whose data bytes the analyses may ask for in one file (comfy_quant JSON, LoRA alphas, shapes…). */
export const MAX_WANTED_TENSORS = 4_096;

/** Total data bytes the analyses may ask for in one file: small enough to fetch in one ranged read or two. */
export const MAX_WANTED_BYTES = 1024 * 1024;

/** A single wanted tensor larger than this is never fetched (configs and scalars are a few hundred bytes). */
export const MAX_WANTED_TENSOR_BYTES = 64 * 1024;

/**
 * Layers looked through for the first one with attention when the first has none (a hybrid's Mamba, linear-attention
 * or convolution layers come first): real hybrids place attention within their first ten layers.
 */
export const MAX_LAYERS_SEARCHED_FOR_ATTENTION = 64;

/** Tags kept from kohya's ss_tag_frequency (the chart shows the head; the count stays exact). */
export const MAX_TAGS = 200;

/** Children listed under one module-tree node before the rest fold into a `more` summary. */
export const MAX_TREE_CHILDREN = 500;

/**
 * Nodes in one module tree: past it every further child folds into its parent's "… N more" entry, so a header of a
 * million distinct module paths yields a section of bounded size (real models, folded, stay under a few hundred).
 */
export const MAX_TREE_NODES = 5_000;

/**
 * Rows the module tree's build goes through between two points where the worker may pause it (about a millisecond
 * of work): a file dropped while a large tree is built is read at the next pause (core/steps.ts).
 */
export const TREE_ROWS_PER_STEP = 16_384;

/**
 * Templates (distinct name shapes) the module tree builds or visits between two pauses: each costs a few
 * microseconds (its segments, a child lookup), so a header of 50,000 distinct paths pauses every ~10 ms.
 */
export const TREE_TEMPLATES_PER_STEP = 2_048;

/** Rows the table's width pass measures between two points where the worker may pause it (a few milliseconds). */
export const TABLE_WIDTH_ROWS_PER_STEP = 65_536;

/**
 * Distinct name shapes (names with numbers as `#`) the module tree folds; above it the tree gives up and says so.
 * A 250,000-tensor MoE has about a dozen shapes and real models a few thousand at most, while each 100,000 shapes
 * cost seconds of worker time: a header of that many distinct module paths has no structure to show.
 */
export const MAX_TREE_TEMPLATES = 50_000;

/**
 * Rows above which the module tree leaves paths written with underscores (kohya) as they are: LoRA files hold a
 * few thousand tensors, and cutting every name of a crafted million-row header would be a long task of its own.
 */
export const MAX_UNDERSCORE_PATH_ROWS = 200_000;

/** Numbered containers given a bytes-by-layer series. */
export const MAX_LAYER_SERIES = 4;

/**
 * Layers a bytes-by-layer series shows one point each: the largest real models have up to ~126 (Llama 3.1 405B).
 * Beyond it, layers are summed into SUMMED_LAYER_POINTS runs of consecutive layers: a million points cost seconds
 * to post to the page and to draw.
 */
export const MAX_LAYER_POINTS = 128;

/**
 * Points of a series whose layers are summed into runs. The chart draws each bar as a few SVG elements: 256 bars
 * took 0.8 s and 128 bars 0.7 s on a busy machine, where the tabs' bound is 200 ms.
 */
export const SUMMED_LAYER_POINTS = 64;

/** Entries in the bytes-by-top-level-module series. */
export const MAX_TOP_LEVEL_SERIES = 24;

/** Evidence lines kept per section. */
export const MAX_EVIDENCE = 24;

/** LoRA target kinds listed. */
export const MAX_LORA_TARGETS = 64;

/**
 * Rows the page measures for the table's column widths while the worker measures every row (table-widths.ts): well
 * under a millisecond, even in code not compiled yet, inside the task that mounts the table.
 */
export const TABLE_WIDTH_SAMPLE_ROWS = 1_000;

/**
 * Repeating layers the memory estimate lays out one by one (config.json's num_hidden_layers, a GGUF's block_count).
 * Published models have at most a few hundred; a count past this is broken or hostile, and sizing it would allocate
 * per-layer arrays of that length.
 */
export const MAX_MODEL_LAYERS = 4096;

/**
 * added_tokens_decoder entries the Tokenizer section keeps (Llama 3 adds 256 reserved special tokens); a longer
 * list is counted and its highest id checked, not carried to the page.
 */
export const MAX_ADDED_TOKENS_KEPT = 8_192;

/**
 * Characters of a SentencePiece token split into its merges when a GGUF's tokenizer is made a tokenizer.json
 * (llama-tokenizer-json.ts): sentencepiece's trainer makes pieces of at most 16 by default (max_sentencepiece_length);
 * the splits of one token cost the square of its length, so a longer one is left whole (still a token, never made
 * by merges) and a hostile list of 256k long tokens costs at most 256k × 32² steps.
 */
export const MAX_SCORE_MERGE_TOKEN_CHARS = 32;

/**
 * log_history entries of a trainer_state.json read into the Training section. Logging every step for a million steps
 * makes a million entries (about 150 MB of JSON, past MAX_TRAINER_STATE_BYTES anyway); entries past this are
 * counted, not read.
 */
export const MAX_TRAINING_LOG_ENTRIES = 1_000_000;

/**
 * Keys of log_history drawn as series. A run logs a handful (loss, learning_rate, grad_norm, eval_*; TRL's trainers
 * a few dozen rewards and log-probabilities); more are counted and left out, so a hostile file cannot make the
 * report carry thousands of series.
 */
export const MAX_TRAINING_SERIES = 64;

/**
 * Points of one series the report carries for its chart: all of them up to this, else each of this many buckets'
 * lowest and highest value. A chart is at most a few hundred pixels wide, and a spike stays drawn.
 */
export const MAX_TRAINING_CHART_BUCKETS = 1_000;
