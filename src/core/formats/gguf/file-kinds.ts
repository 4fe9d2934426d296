/**
 * What a GGUF is when it is not a model to run on its own, as notes on the file: no tensors (a vocab-only file), a
 * multimodal projector, a LoRA adapter, an importance matrix or a control vector. Each names the tool that writes such
 * a file and how llama.cpp uses it; the page's integrity line follows the note (features/formats/format-views.tsx).
 */
import { makeFinding } from '../../findings/make-finding';
import type { Finding } from '../../model';
import { plural } from '../../parse/message-format';
import type { GgufTensorInfo } from './header-parser';
import type { GgufSummary } from './gguf-types';
import { inSplitSet } from './splits';

/** The notes on what the file is; at most one applies. */
export function fileKindFindings(gguf: GgufSummary, tensors: readonly GgufTensorInfo[]): Finding[] {
  const note =
    tensorlessFinding(gguf) ??
    mmprojFinding(gguf) ??
    adapterFinding(gguf) ??
    imatrixFinding(gguf) ??
    controlVectorFinding(gguf, tensors);
  return note === null ? [] : [note];
}

/**
 * The note on a GGUF that lists no tensors and is not one split of a set (the first split of a set may hold only
 * the metadata; splitPartFinding speaks for it). With a tokenizer it is a vocab-only file, as llama.cpp's
 * convert_hf_to_gguf.py writes with --vocab-only and ships for its tokenizer tests (models/ggml-vocab-*.gguf):
 * llama.cpp reads those with `vocab_only` set and has no weights to run.
 */
function tensorlessFinding(gguf: GgufSummary): Finding | null {
  if (gguf.tensorCount > 0 || inSplitSet(gguf)) {
    return null;
  }
  const tokenizer = gguf.tokenizer;
  if (tokenizer !== null && tokenizer.vocabSize > 0) {
    const model = tokenizer.model === null ? 'a' : `a “${tokenizer.model}”`;
    const hyper = gguf.architecture === null ? '' : ` and ${gguf.architecture} hyperparameters`;
    return makeFinding(
      'gguf-vocab-only',
      `This GGUF lists no tensors: it holds ${model} tokenizer of ${plural(tokenizer.vocabSize, 'token')}${hyper}, ` +
        'a vocab-only file such as convert_hf_to_gguf.py --vocab-only writes. llama.cpp reads it for tokenizing only ' +
        '(vocab_only, as llama-tokenize and its tokenizer tests do); to run the model, open the GGUF with the weights.',
    );
  }
  return makeFinding(
    'gguf-no-tensors',
    `This GGUF lists no tensors and no tokenizer: ${plural(gguf.kvCount, 'key-value')} and nothing to load. If you ` +
      'expected weights, the conversion stopped early or wrote the wrong file; re-run it.',
  );
}

/**
 * The note on a multimodal projector: convert_hf_to_gguf.py --mmproj writes a model's vision (or audio) encoder and
 * the projector into its text embeddings as a GGUF of its own, general.architecture `clip`. llama.cpp loads it with
 * --mmproj beside the language model's GGUF (llama-mtmd-cli, llama-server); as a model on its own it is refused.
 */
function mmprojFinding(gguf: GgufSummary): Finding | null {
  const mmproj = gguf.mmproj;
  if (mmproj === null) {
    return null;
  }
  const encoders = [mmproj.vision ? 'vision' : null, mmproj.audio ? 'audio' : null].filter(
    (encoder): encoder is string => encoder !== null,
  );
  const projector = mmproj.projector;
  const what = `${encoders.length > 0 ? `a ${encoders.join(' and ')} encoder` : 'an encoder'} and ${projector === null ? 'its projector' : `its “${projector}” projector`}`;
  return makeFinding(
    'gguf-mmproj',
    `This GGUF is a multimodal projector (mmproj): ${what} into a language model's embeddings, as ` +
      "convert_hf_to_gguf.py --mmproj writes. llama.cpp loads it with --mmproj beside the language model's GGUF " +
      '(llama-mtmd-cli, llama-server); on its own it is not a model llama.cpp can run.',
  );
}

/**
 * The note on a LoRA adapter (general.type `adapter`, convert_lora_to_gguf.py), which llama.cpp applies with --lora on
 * top of a model of the same general.architecture whose tensor names and shapes its `<weight>.lora_a` / `.lora_b`
 * pairs match; it does not load as a model.
 */
function adapterFinding(gguf: GgufSummary): Finding | null {
  const adapter = gguf.adapter;
  if (adapter === null) {
    return null;
  }
  const activated = adapter.type === 'alora';
  const kind = activated ? 'an activated LoRA (aLoRA) adapter' : 'a LoRA adapter';
  const facts = [
    adapter.alpha === null
      ? 'no adapter.lora.alpha (llama.cpp then applies it at the scale you give)'
      : `alpha ${adapter.alpha}`,
    adapter.taskName === null ? null : `task “${adapter.taskName}”`,
    activated && adapter.invocationTokens !== null
      ? `active after its ${plural(adapter.invocationTokens, 'invocation token')}`
      : null,
  ].filter((fact): fact is string => fact !== null);
  const base = gguf.architecture === null ? 'a model' : `a ${gguf.architecture} model`;
  return makeFinding(
    'gguf-lora-adapter',
    `This GGUF is ${kind} (${facts.join(', ')}), as convert_lora_to_gguf.py writes. llama.cpp applies it with ` +
      `--lora FILE (or --lora-scaled FILE SCALE) on top of ${base}'s GGUF whose tensor names and shapes its ` +
      'lora_a / lora_b pairs match; on its own it is not a model to run. Open the base with Compare to check the fit.',
  );
}

/**
 * The note on an importance matrix (general.type `imatrix`, llama-imatrix): the activation statistics llama-quantize
 * reads with --imatrix; it holds no weights.
 */
function imatrixFinding(gguf: GgufSummary): Finding | null {
  const imatrix = gguf.imatrix;
  if (imatrix === null) {
    return null;
  }
  const over =
    imatrix.chunkCount === null
      ? ''
      : ` over ${plural(imatrix.chunkCount, 'chunk')}${imatrix.chunkSize === null ? '' : ` of ${plural(imatrix.chunkSize, 'token')}`}`;
  const from =
    imatrix.datasets.length === 0
      ? ''
      : ` of ${imatrix.datasets.map((name) => `“${name}”`).join(', ')}${imatrix.datasetCount > imatrix.datasets.length ? ', …' : ''}`;
  return makeFinding(
    'gguf-imatrix',
    `This GGUF is an importance matrix, as llama-imatrix writes: sums of the squared activations entering each ` +
      `weight${over}${from}, per tensor (<weight>.in_sum2 and .counts). llama-quantize reads it with --imatrix FILE to ` +
      'decide how to round each weight; it holds no weights and is not a model to run.',
  );
}

/** ggml's F32 type id: llama.cpp reads a control vector's directions only as F32. */
const GGML_F32 = 0;

/**
 * The note on a control vector (general.architecture `controlvector`, repeng's export_gguf): one steering direction
 * per layer, `direction.N` for layer N ≥ 1, which llama.cpp adds to that layer's output with --control-vector. Its
 * loader (common_control_vector_load_one) refuses a file whose tensors are not so named, are not 1-D F32, or differ in
 * length: that is a warning, with the tensors.
 */
function controlVectorFinding(gguf: GgufSummary, tensors: readonly GgufTensorInfo[]): Finding | null {
  const vector = gguf.controlVector;
  if (vector === null) {
    return null;
  }
  const width = tensors[0]?.ne[0];
  const refused: number[] = [];
  tensors.forEach((tensor, row) => {
    const layer = /^direction\.(\d+)$/.exec(tensor.name);
    if (
      layer === null ||
      Number(layer[1]) === 0 ||
      tensor.type !== GGML_F32 ||
      tensor.ne.length !== 1 ||
      tensor.ne[0] !== width
    ) {
      refused.push(row);
    }
  });
  const model = vector.modelHint === null ? 'a model' : `a ${vector.modelHint} model`;
  const layers = plural(vector.layerCount ?? tensors.length, 'layer');
  const what =
    `This GGUF is a control vector for ${model}: a steering direction for each of ${layers}` +
    `${width === undefined || Number.isNaN(width) ? '' : ` (${width} values each)`}, as repeng's export_gguf writes. ` +
    'llama.cpp adds it to the hidden state with --control-vector FILE (--control-vector-scaled FILE SCALE, ' +
    '--control-vector-layer-range); it holds no model.';
  if (refused.length === 0) {
    return makeFinding('gguf-control-vector', what);
  }
  return makeFinding(
    'gguf-control-vector-refused',
    `${what} But llama.cpp refuses it: ${plural(refused.length, 'tensor')} ${refused.length === 1 ? 'is' : 'are'} not ` +
      'a 1-D F32 direction.N for a layer N ≥ 1 of the same length as the first.',
    refused,
  );
}
