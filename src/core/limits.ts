/** Every hard limit the app enforces, each with the reason it exists. */

/** The reference loader's `MAX_HEADER_SIZE`: headers above it are refused by every conforming reader. */
export const MAX_HEADER_LENGTH = 100_000_000;

/**
 * Above the spec cap a user may still ask to "parse anyway"; this bound keeps that inside the worker's memory
 * budget (the header bytes plus a columnar copy a few times smaller) on a 32-bit-heap browser tab. Decimal, like
 * every size the app shows, so the README, the button and the message all say "512 MB".
 */
export const MAX_HEADER_LENGTH_OVERRIDE = 512_000_000;

/** Length prefix plus at least `{}`: anything shorter cannot be a safetensors file. */
export const MIN_FILE_SIZE = 8;

/**
 * serde_json's recursion limit, inherited by the reference loader: every `[` or `{` (the top-level object included)
 * takes one of 128 levels and opening the 128th fails, so 127 nested containers load and 128 do not. The header
 * scanner skips nesting without recursion, so it needs no lower limit of its own and refuses exactly where the
 * reference does (docs/findings.md, `too-deep`).
 */
export const REFERENCE_JSON_RECURSION_LIMIT = 128;

/** The deepest nesting the reference loads (the top-level object is level 1). */
export const REFERENCE_MAX_JSON_DEPTH = REFERENCE_JSON_RECURSION_LIMIT - 1;

/** Our own nesting limit for sharded index files (real ones nest 3 deep; no reference loader defines one). */
export const MAX_JSON_DEPTH = 64;

/**
 * Rows sent ahead as a preview while a big header is still arriving or being parsed, or, for a remote sharded
 * model, from the first shard header while the others load: about two screens.
 */
export const PREVIEW_ROWS = 60;

/**
 * Rows up to which a load whose preview is already on screen posts its result together with the report's analyses
 * instead of ahead of them (worker/publish.ts): the analyses cost about 2 µs a row in a fresh worker, so the full
 * table waits at most about a quarter of a second, and the page does not render it while the worker analyses.
 */
export const MAX_ROWS_HELD_FOR_ANALYSES = 131_072;

/**
 * Longest the worker waits for the page to say it painted a result before it runs what it held back for that paint
 * (a big table's analyses, the views of a result that carried its report) anyway: a page in a background tab paints
 * no frames, and it must still get its report.
 */
export const MAX_WAIT_FOR_PAINT_MS = 1_000;

/**
 * Longest the worker builds a view (the Modules tab's tree) before it takes a task break: a file dropped meanwhile,
 * or a table query, waits at most about this long (worker/publish.ts runStepsInSlices).
 */
export const VIEW_SLICE_MS = 8;

/** Longest the page waits to be idle after painting a result before it tells the worker anyway (a busy page). */
export const MAX_IDLE_WAIT_AFTER_RESULT_MS = 500;

/** Tensors listed by index on a single finding; the count is kept exactly, the list is capped to stay small. */
export const MAX_TENSORS_PER_FINDING = 1_000;

/** Tensor or file names quoted in one finding message before "and N more"; the exact count is always given too. */
export const MAX_NAMES_IN_MESSAGE = 5;

/** Findings of one code before the rest are folded into a count, so a hostile header cannot flood the panel. */
export const MAX_FINDINGS_PER_CODE = 200;

/** Rank limit: the reference loader has none, but no real tensor exceeds 8 dims; 64 bounds the dims buffer. */
export const MAX_TENSOR_RANK = 64;

/** Metadata values longer than this are truncated in the UI (never in exports). */
export const MAX_METADATA_VALUE_DISPLAY_CHARS = 4_000;

/**
 * Tensor names and metadata keys longer than this are shortened on screen (never in the CSV or report): real names
 * stay under 200 characters, and a hostile 100,000-character name would otherwise flood the table and details.
 */
export const MAX_NAME_DISPLAY_CHARS = 1_000;

/**
 * Local shard headers read at once (File slices: a few in flight keep the disk busy). Remote shards are paced by
 * the connection instead: MULTIPLEXED_SHARD_CONCURRENCY or HTTP1_SHARD_CONCURRENCY (src/io/connection.ts).
 */
export const SHARD_HEADER_CONCURRENCY = 4;

/**
 * Headroom on memory warmed for a shard set's merged table (worker/shard-reading.ts): its dims are estimated from
 * the shards read first, and a buffer too small for the real table is not used at all.
 */
export const WARM_MARGIN = 0.15;

/**
 * Most bytes warmed for one copy of a merged table: about 700,000 rows, beyond the largest real index. An index
 * whose weight_map claims more than its shards hold must not make the worker commit memory for rows that never come.
 */
export const MAX_WARM_BYTES = 64 * 1024 * 1024;

/**
 * Remote shard headers in flight over HTTP/2 and HTTP/3, which multiplex every request over one connection, so
 * latency-bound header reads overlap freely. 64 reads a 163-shard model in three rounds (16 took eleven: 0.5 s of
 * waiting at 50 ms) and stays under the 100 concurrent streams servers commonly allow per connection, leaving room
 * for the page's other requests.
 */
export const MULTIPLEXED_SHARD_CONCURRENCY = 64;

/**
 * Most shards read ahead of a streaming remote index from the `-NNNNN-of-NNNNN` names (io/sources/resolve-source.ts):
 * the largest public checkpoints have a few hundred shards, and a name claiming 99,999 must not send as many requests
 * before the index has confirmed one of them.
 */
export const MAX_SHARDS_READ_AHEAD = 1_000;

/**
 * Files a split GGUF's name may claim before its siblings are fetched by name alone (no index confirms them): the
 * largest public split sets have a few dozen files (a 2 TB model in 50 GB splits is 40), and a name claiming
 * 99,999 must not send as many requests. Past it the named file opens alone and says what it is part of.
 */
export const MAX_SIBLINGS_BY_NAME = 256;

/** Connections a browser opens to one host over HTTP/1.1 (Chromium, Firefox and Safari alike); more requests queue. */
export const HTTP1_CONNECTIONS_PER_HOST = 6;

/**
 * Remote shard headers in flight over HTTP/1.1: one per connection. Two, one queued in the browser behind each,
 * kept the connections busier (load done 2,164 against 2,241 ms at 50 ms), but after Cancel the browser could still
 * send a queued read (likely: aborting the reads on the wire frees connections before the queued ones are
 * withdrawn), and the cancel e2e check saw one request after "Loading cancelled" (docs/performance.md).
 */
export const HTTP1_SHARD_CONCURRENCY = HTTP1_CONNECTIONS_PER_HOST;

/** Shard header answers asked for their protocol (Resource Timing) before the host alone decides the pace. */
export const PACE_ATTEMPTS = 8;

// ---------------------------------------------------------------------------------------------------------------
// Sources, the worker and the table: memory and time the app spends on one session.

/** Loads kept for queries; older ones are dropped so switching sources cannot grow memory without bound. */
export const MAX_KEPT_LOADS = 8;

/**
 * Memory the kept loads may hold together. Eight "parse anyway" headers near 512 MB would exhaust a tab, so the
 * oldest loads go first once their bytes pass this; the newest load is always kept, whatever its size.
 */
export const MAX_KEPT_BYTES = 1_000_000_000;

/** Comparisons kept for queries: the current one and the one being replaced. */
export const MAX_KEPT_COMPARES = 2;

/** Progress messages of one load, at most one per this many ms: ten a second keep a progress bar moving to the eye. */
export const PROGRESS_POST_INTERVAL_MS = 100;

/**
 * A table query (sort, filter) should take milliseconds even on 250,000 rows; one that runs this long is a
 * catastrophic-backtracking regex (`/(a+)+$/`, perhaps from a share link), which no code can interrupt inside
 * RegExp.test. The only way out is to replace the worker.
 */
export const QUERY_TIMEOUT_MS = 5_000;

/**
 * Rows up to which the page builds a file-order answer itself (core/table-query.ts fileOrderAnswer), a few ms on the
 * main thread (a million took 20 ms); a larger table asks the worker, so no page task grows with the row count.
 */
export const MAX_ROWS_ORDERED_IN_PAGE = 131_072;

/**
 * Files taken from one drop or pick. A model folder holds a few hundred files at most; dropping a home folder by
 * mistake must not walk (and list) millions of entries.
 */
export const MAX_DROPPED_FILES = 20_000;

/** config.json and adapter_config.json are a few KB (quantization maps make some a few hundred); more is not one. */
export const MAX_SIDECAR_BYTES = 4 * 1024 * 1024;

/**
 * tokenizer_config.json lists every added token (thousands in some vocabularies, a megabyte or more); a chat template
 * is tens of KB. Past this a file is not one of them, and it is left unread.
 */
export const MAX_TOKENIZER_FILE_BYTES = 8 * 1024 * 1024;

/**
 * trainer_state.json grows by about 150 bytes a logged step (a few KB for a short fine-tune, tens of MB for a long
 * pretraining run logged every step); past this it is left unread, so a wrong file cannot hold the worker.
 */
export const MAX_TRAINER_STATE_BYTES = 64 * 1024 * 1024;

/**
 * tokenizer.json, read on a click: 9 MB for Llama 3, 11 MB for Qwen 2.5, 33 MB for Gemma 3's 262k tokens. Past this
 * it is left unread, and the Tokenizer tab says so: parsing it would hold several times its size in the worker.
 */
export const MAX_VOCABULARY_FILE_BYTES = 64 * 1024 * 1024;

/**
 * A tokenizer.json becomes a tokenizer in well under a second (Gemma 3's 262k tokens included); one still building
 * after this is not going to, and its worker is terminated.
 */
export const TOKENIZER_LOAD_TIMEOUT_MS = 20_000;

/**
 * One text encodes in milliseconds; an encode still running after this is stuck in a pre-tokenizer pattern from the
 * file that backtracks (a regex is a program too), and its worker is terminated.
 */
export const ENCODE_TIMEOUT_MS = 2_000;

/**
 * A chat template renders the sample conversation in milliseconds; one still running after this is looping for too
 * long or for ever (a template is a program from the file being inspected), and its worker is terminated.
 */
export const TEMPLATE_RENDER_TIMEOUT_MS = 2_000;

/**
 * Pieces (lines, cut before each Jinja tag) of a chat template the tokenizer comparison diffs: the largest released
 * templates have a few hundred; the diff's table is pieces² 16-bit cells, 8 MB at this cap.
 */
export const MAX_TEMPLATE_DIFF_PIECES = 2_000;

/** Added tokens the tokenizer comparison lists per side (a fine-tune adds a handful; the rest are counted). */
export const MAX_TOKENS_LISTED_PER_SIDE = 200;

/** Files kept from one listing. The largest model repos hold a few thousand files; this bounds a hostile listing. */
export const MAX_REPO_FILES = 100_000;

/** Pages followed. The Hub pages recursive listings by 1,000 entries, so this covers MAX_REPO_FILES with room. */
export const MAX_LISTING_PAGES = 200;

/** Bytes read of one page: 1,000 entries with LFS details are ~300 KB; more is not a listing. */
export const MAX_LISTING_PAGE_BYTES = 16 * 1024 * 1024;

// ---------------------------------------------------------------------------------------------------------------
// Remote reads: how long and how often a request is tried, and what the app takes from a server.

/** Silence after which a range request is abandoned: no response headers or no body bytes for this long. */
export const DEFAULT_TIMEOUT_MS = 20_000;

/** Extra attempts of a range read after a transient failure (network error, 5xx, 408, 429, dropped connection). */
export const DEFAULT_MAX_RETRIES = 2;

/** Extra attempts of a Hub listing page after a network error, 429 or 5xx (the API sheds load with 429/503). */
export const MAX_LISTING_RETRIES = 2;

/** No single backoff waits longer than this: a user is watching a progress bar. */
export const MAX_BACKOFF_MS = 8_000;

/** `Retry-After` values above this are not waited out; the user gets the server's wait time instead. */
export const MAX_RETRY_AFTER_MS = 10_000;

/**
 * Bytes beyond the asked range we accept from a server that ignores Range (200), so a small file served whole
 * still loads; anything bigger is cancelled before more than this arrives.
 */
export const IGNORED_RANGE_SLACK_BYTES = 64 * 1024;

/**
 * The scratch a streamed read refills (io/read-buffer.ts): a byte stream fills as much of it as has arrived, and
 * one read of up to this many bytes per wake-up keeps the reads few without holding much memory.
 */
export const STREAM_READ_BYTES = 256 * 1024;

/**
 * A kept read fills its result in place (io/read-buffer.ts) only when the answer promises at most this: a bigger
 * range grows with the bytes that actually arrive, so a server that promises 100 MB and sends 16 bytes costs 16.
 */
export const MAX_IN_PLACE_READ_BYTES = 4 * 1024 * 1024;

/** Follow-up requests when a server answers with shorter ranges than asked (not at EOF) before giving up. */
export const MAX_SHORT_RANGE_FOLLOWUPS = 16;

/** One coalesced analysis read may cover this much: a span is latency-bound up to here, bandwidth-bound beyond. */
export const REMOTE_MAX_SPAN_BYTES = 64 * 1024;

/** Extra bytes read per file for analyses; past it, the analyses work from a sample (an evenly spread subset). */
export const REMOTE_MAX_FILE_BYTES = 256 * 1024;

/** Requests of one load's analysis round trip: the browser queues more anyway, and the evidence is a sample. */
export const REMOTE_MAX_SPANS = 32;

/**
 * Analysis reads over HTTP/1.1: two rounds on the connections a browser opens per host, so with the header's one
 * or two round trips a load stays within four (32 reads would queue into six rounds on six connections).
 */
export const HTTP1_MAX_SPANS = 2 * HTTP1_CONNECTIONS_PER_HOST;

/** Upper bound on data bytes the analyses may read of a local file (comfy_quant configs, LoRA alphas): a few KB. */
export const MAX_ANALYSIS_DATA_BYTES = 4 * 1024 * 1024;

/** The Hub revision lookup is a nicety: it never holds up a load longer than this. */
export const REVISION_LOOKUP_TIMEOUT_MS = 10_000;

/** The revision lookup's API answer is a few KB of model info; a longer one is not read. */
export const MAX_REVISION_ANSWER_BYTES = 1024 * 1024;

/** Server-provided error text (`X-Error-Message`) is quoted up to this length. */
export const MAX_SERVER_MESSAGE_CHARS = 200;

/** Quoted validators (ETag, Last-Modified) are cut to this in messages: a hostile server can send a megabyte. */
export const MAX_VALIDATOR_CHARS = 80;

/** A typed or pasted address longer than this is not a link; the bound keeps parsing cheap on a pasted blob. */
export const MAX_INPUT_LENGTH = 8_192;

/** The Hub's repo-name limit (huggingface_hub `validate_repo_id`); longer parts cannot be a repo id. */
export const MAX_REPO_PART_LENGTH = 96;

/** Quoted user input in error messages is cut here so a pasted paragraph does not flood the message. */
export const MAX_QUOTED_CHARS = 80;
