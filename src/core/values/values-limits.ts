/** Limits of reading tensor values, each with its reason. */

/** A remote tensor up to this size is read whole by "Read values": one tensor of a 7B model's layer, a few seconds. */
export const REMOTE_VALUES_WHOLE_BYTES = 16 * 1024 * 1024;

/** Bytes of an evenly spread row sample of a larger remote tensor: half the whole-read budget, enough for 10⁶+ values. */
export const REMOTE_VALUES_SAMPLE_BYTES = 8 * 1024 * 1024;

/**
 * Runs of consecutive rows a sample takes: one Range request each, so a sample costs a bounded number of requests
 * however small its rows are, while 32 strata still spread it over the whole tensor.
 */
export const VALUES_SAMPLE_RUNS = 32;

/** Bytes per read of a local file: large enough for disk speed, small enough to report progress and cancel promptly. */
export const LOCAL_VALUES_CHUNK_BYTES = 8 * 1024 * 1024;

/**
 * Local slices requested ahead of the one being counted. With one, the browser's copy of the next slice and the
 * statistics of this one contend for two cores and the copy falls behind; with three queued it never waits for a
 * request (scripts/bench-values.ts). At most this many × LOCAL_VALUES_CHUNK_BYTES are held at once.
 */
export const LOCAL_VALUES_READS_AHEAD = 3;

/** Bytes per remote request: a Range answer of this size arrives in well under a second on a fast link. */
export const REMOTE_VALUES_CHUNK_BYTES = 4 * 1024 * 1024;

/** Remote Range requests in flight at once for values: keeps a link busy without crowding out the page's others. */
export const REMOTE_VALUES_CONCURRENCY = 4;

/**
 * Rows looked at per matrix for its columns' abs-max when every tensor is read ("Scan all values", "Compare values"),
 * evenly spread: a column far above the rest shows in every row, so 256 rows find it at a sixteenth of the work of a
 * 4,096-row weight, and neither loses its pace.
 */
export const COLUMN_SCAN_ROWS = 256;

/**
 * Rows of a changed matrix whose difference "Compare values" keeps to count the directions of the change: enough to
 * tell a merged LoRA of rank up to 64 (half of them) from a full fine-tune, for a Gram of 128 × 128 a tensor (about
 * 30 ms for rows of 4,096, 81 ms for rows of 14,336: under 10 s over a 7B model, whose comparison takes minutes).
 */
export const CHANGE_RANK_ROWS = 128;

/** First values shown with their exact decimals and raw bytes. */
export const FIRST_VALUES = 16;

/** Seed of the row sample, shown with it, so the same sample can be drawn again. */
export const VALUES_SAMPLE_SEED = 17;

/** Storage bytes a strided view (a transpose, a slice) may span: read whole, then gathered, so held in memory twice. */
export const MAX_STRIDED_EXTENT_BYTES = 256 * 1024 * 1024;

/**
 * Bytes of a Distributed Checkpoint tensor whose chunks split it along other dimensions than its first (tensor
 * parallelism): every chunk is read, then copied into place, so the tensor is held whole.
 */
export const MAX_ASSEMBLED_TENSOR_BYTES = 256 * 1024 * 1024;

/** Chunks of one tensor checked pairwise for overlap before they are assembled: more ranks than any real run. */
export const MAX_ASSEMBLED_CHUNKS = 1024;

// LoRA measures (lora-update.ts, lora-spectrum.ts, lora-pair.ts).

/**
 * Multiply-adds the Grams of one adapter may take, (in + out) · r² / 2 a module: about 10 s of one core in a browser
 * (~2 × 10⁹ a second). Every rank-64 adapter of an 8B model fits (5.4 × 10⁹ with all seven projections); a rank-256
 * one on all of them (8.6 × 10¹⁰, most of a minute against the scan's seconds) is not measured, and says so.
 */
export const MAX_LORA_UPDATE_WORK = 2e10;

/** A factor held decoded while it is read: 32 M values are 128 MiB of Float32 (an embedding's A at rank 256). */
export const MAX_LORA_FACTOR_VALUES = 32 * 1024 * 1024;

/** Grams waiting for their module's other factor (factors far apart in the file): 256 MiB of Float64. */
export const MAX_PENDING_GRAM_BYTES = 256 * 1024 * 1024;

/** Modules named per reason when not measured; the count stays exact. */
export const MAX_UNMEASURED_LISTED = 20;

/** Power-iteration steps at most: enough for σ²_max to 12 digits unless the two largest nearly tie. */
export const MAX_POWER_STEPS = 300;

/**
 * Multiply-adds "Compute ΔW" may take, out · in · r: a few seconds of one core (every module of a rank-64 adapter on
 * an 8B model, 14,336 × 4,096 × 64 = 3.8 × 10⁹, fits; a rank-64 update of a 150k-token embedding does not).
 */
export const MAX_LORA_DELTA_WORK = 4e9;

/** Values of ΔW counted into its statistics and pictures: 2²⁸, about 1.5 s of statistics on top of the products. */
export const MAX_LORA_DELTA_VALUES = 2 ** 28;

/** Values of ΔW formed at a time: whole rows, ~4 MiB of Float32, then counted and dropped. */
export const LORA_DELTA_CHUNK_VALUES = 1 << 20;

/**
 * Most experts a stack is read expert by expert (the scan, Read values, Compare values): past the largest real
 * mixtures (Qwen3's 512, Kimi K2's 384), so a hostile header's [2^31, 1, 1] stack costs no per-expert memory.
 */
export const MAX_STACKED_EXPERTS = 4096;
