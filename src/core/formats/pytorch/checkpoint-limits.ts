/** Bounds that keep a hostile checkpoint's cost proportional to the bytes it actually sends, each with its reason. */

/**
 * Largest pickle read and parsed: a 7B model's data.pkl is ~36 KB and a 20,000-tensor one ~2 MB; 128 MiB leaves two
 * orders of magnitude for huge optimizer checkpoints while keeping the worker's memory bounded.
 */
export const MAX_PICKLE_BYTES = 128 * 1024 * 1024;

/** Strings longer than this are kept truncated (names and scalars are short; a 100 MB string is an attack). */
export const MAX_KEPT_STRING_BYTES = 64 * 1024;

/** Text-line opcodes (GLOBAL, INT, LONG, FLOAT, STRING, GET/PUT, PERSID) longer than this are refused. */
export const MAX_LINE_BYTES = 1024 * 1024;

/** LONG1/LONG4 integers over this many bytes are kept as "a big integer" (real pickles use at most 9). */
export const MAX_LONG_BYTES = 64;

/**
 * Container nodes visited when naming tensors: memoised containers can form a DAG with exponentially many paths,
 * so the walk stops here and says so (a 20,000-tensor state dict visits ~40,000 nodes).
 */
export const MAX_WALK_NODES = 4_000_000;

/** Path depth followed when naming tensors: real checkpoints nest under 10 deep. */
export const MAX_WALK_DEPTH = 128;

/**
 * Total bytes of tensor names from one file: names are paths, and a memoised container reached through many paths
 * (a DAG) could otherwise make names far longer than the pickle. Real checkpoints use ~60 bytes per name.
 */
export const MAX_TENSOR_NAME_BYTES = 64 * 1024 * 1024;

/** Tensors listed from one file: bounds the columns a hostile pickle can make us allocate. */
export const MAX_CHECKPOINT_TENSORS = 2_000_000;

/**
 * Bytes read from the end of a zip in one request: the 98-byte torch tail plus a central directory of ~700
 * entries. Bigger directories cost one more read of exactly the missing part.
 */
export const ZIP_TAIL_READ_BYTES = 64 * 1024;

/** Local tail read: the 98-byte torch tail and a short directory; a longer one is read exactly afterwards. */
export const LOCAL_TAIL_READ_BYTES = 4 * 1024;

/** The EOCD may be followed by a comment of up to 65,535 bytes; it is searched for no further back than this. */
export const MAX_EOCD_SEARCH_BYTES = 22 + 65_535;

/** Central directory entries accepted (torch writes one per storage plus four). */
export const MAX_ZIP_ENTRIES = 4_000_000;

/** Central directory bytes accepted (~70 bytes per entry). */
export const MAX_CENTRAL_DIRECTORY_BYTES = 256 * 1024 * 1024;

/** A `byteorder` record holds `little` or `big`; one larger is read no further (torch.load refuses it either way). */
export const MAX_BYTE_ORDER_RECORD_BYTES = 64;

/**
 * torch writes the `byteorder` record a few hundred bytes after data.pkl (after `.format_version` and
 * `.storage_alignment`): the pickle's own read reaches this far past its end to take it without a request of its own.
 */
export const BYTE_ORDER_READ_REACH_BYTES = 4 * 1024;

/** First read of a pickle that has no directory to size it (legacy or bare): grows by doubling from here. */
export const PICKLE_FIRST_READ_BYTES = 64 * 1024;

/** Distinct globals listed in the report and the safety panel (each with a count); the rest are counted. */
export const MAX_LISTED_GLOBALS = 500;

/** Characters of one call shown as text (`posix.system('echo pwned')`): enough to read a payload, not to carry it. */
export const MAX_CALL_TEXT_CHARS = 400;

/** Calls listed in the report and the safety panel (the dangerous ones, in pickle order); the rest are counted. */
export const MAX_LISTED_CALLS = 50;

/** Nesting followed when writing a call's arguments as text: deeper values are written as `…`. */
export const MAX_CALL_TEXT_DEPTH = 8;

/** Globals whose risk the call recorder remembers across calls and files: each is a short string pair. */
export const MAX_REMEMBERED_GLOBALS = 4096;

/**
 * Bytes entries of a Distributed Checkpoint read at load to judge them (dcp.load unpickles each with
 * weights_only=False): torchtitan saves a few (train state, scheduler, dataloader), an optimizer a dozen per
 * parameter group; a hostile metadata listing millions costs at most this many reads.
 */
export const MAX_DCP_BYTES_ENTRIES_READ = 512;

/** Largest bytes entry read whole (a dataloader's state is kilobytes); a bigger one is left unread and said so. */
export const MAX_DCP_BYTES_ENTRY_BYTES = 4 * 1024 * 1024;

/** Bytes entries read at once: over HTTP each is one or two requests, as many as a browser keeps open to one host. */
export const DCP_BYTES_ENTRY_READS_IN_FLIGHT = 6;

/** Adjacent bytes entries read in one request over HTTP up to this many bytes; a longer run is read entry by entry. */
export const MAX_DCP_BYTES_RUN_BYTES = 16 * 1024 * 1024;

/**
 * TorchScript code records read for their classes' parameter and buffer lists: one per Python module of the classes
 * data.pkl uses (a few dozen for a large model); a hostile archive naming more costs no more reads than this.
 */
export const MAX_SCRIPT_CODE_RECORDS = 1024;

/** A code record larger than this is left unread (a model's largest, its own module's, is tens of kilobytes). */
export const MAX_SCRIPT_CODE_RECORD_BYTES = 4 * 1024 * 1024;

/** Code text inflated in all (a deflate bomb in every record stops here): later records are left unread. */
export const MAX_SCRIPT_CODE_TOTAL_BYTES = 32 * 1024 * 1024;

/** Code records within this many bytes of each other are fetched in one request over HTTP (torch.jit.save writes them together). */
export const MAX_SCRIPT_CODE_SPAN_BYTES = 8 * 1024 * 1024;
