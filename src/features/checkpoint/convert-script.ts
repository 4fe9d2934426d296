/**
 * The exact Python that converts this checkpoint to safetensors without running code from it: load with
 * weights_only=True, take the weights section, strip the training wrapper's prefix, keep tensors only (dropping
 * optimizer state and scalars), drop tied duplicates, make views contiguous, then save_file. A file with a
 * dangerous global gets no loading code at all.
 */
import { compositeFamily } from '../../core/formats/pytorch/composite-layouts';
import type { CheckpointSummary } from '../../core/formats/pytorch/checkpoint-types';
import { allTensorNames, type ParsedHeader } from '../../core/model';

export type ConvertAdvice =
  | { kind: 'refuse'; reason: string }
  | { kind: 'no-weights'; reason: string }
  | { kind: 'script'; code: string; notes: string[] };

/** Lists of names written into the script stay readable; longer ones become a rule applied to every tensor. */
const MAX_LISTED_NAMES = 20;

function py(text: string): string {
  return JSON.stringify(text);
}

/** HF names its conversions model.safetensors; everything else keeps its stem. */
export function safetensorsName(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  const index = /^(.*)\.bin\.index\.json$/i.exec(base);
  if (index) {
    return `${index[1].replace(/^pytorch_model/i, 'model')}.safetensors.index.json`;
  }
  if (/^pytorch_model(-\d+-of-\d+)?\.bin$/i.test(base)) {
    return base.replace(/^pytorch_model/i, 'model').replace(/\.bin$/i, '.safetensors');
  }
  const stem = base.replace(/\.(bin|pt|pth|ckpt|pkl)$/i, '');
  return `${stem}.safetensors`;
}

/** `state_dict.model.0.weight` → `0.weight` for weights path `state_dict` and prefix `model.`; null outside it. */
function weightKey(name: string, weights: string, prefix: string): string | null {
  let key = name;
  if (weights !== '') {
    if (!key.startsWith(`${weights}.`)) {
      return null;
    }
    key = key.slice(weights.length + 1);
  }
  return prefix && key.startsWith(prefix) ? key.slice(prefix.length) : key;
}

export function convertAdvice(fileName: string, header: ParsedHeader): ConvertAdvice {
  const pickle = header.pickle;
  const checkpoint = header.checkpoint;
  if (!pickle || !checkpoint) {
    return { kind: 'no-weights', reason: 'This is not a PyTorch checkpoint.' };
  }
  const dangerous = pickle.globals.filter((use) => use.risk === 'dangerous');
  if (dangerous.length > 0 || pickle.dangerous > 0) {
    const names = dangerous.map((use) => `${use.module}.${use.name}`);
    return {
      kind: 'refuse',
      reason: `Do not load this file, not even to convert it: unpickling it would call ${names.length > 0 ? names.join(', ') : 'code hidden behind a computed import'}. No loader option makes that safe. Ask the author for a .safetensors file.`,
    };
  }
  if (header.format === 'pytorch-dcp') {
    return dcpAdvice(fileName, header);
  }
  if (header.format === 'pickle') {
    return {
      kind: 'no-weights',
      reason:
        'This is a bare pickle, not a torch.save file: torch.load cannot read it, and pickle.load runs whatever it imports. There is no safe way to load it in Python; recreate it from its source.',
    };
  }
  if (checkpoint.weights === null) {
    return {
      kind: 'no-weights',
      reason: 'No section of this checkpoint holds tensors, so there is nothing to convert.',
    };
  }
  const weights = checkpoint.weights;
  const prefix = checkpoint.weightsPrefix;

  // A shard set (`pytorch_model.bin.index.json`): the same steps run on every shard, and a new index is written.
  const sharded = /\.index\.json$/i.test(fileName);
  const target = safetensorsName(fileName);
  const notes: string[] = [];
  const scripted = checkpoint.rootScripted === true;
  // torch's quantized dtypes (QINT8, QUINT8…), which safetensors has no spelling for.
  const quantized = [...header.unknownDtypes.values()].filter((dtype) => dtype.startsWith('Q'));
  const lines: string[] = [
    scripted
      ? "# Converts a TorchScript module's weights to safetensors. torch.jit.load compiles the archive's code and runs"
      : '# Converts the weights to safetensors; weights_only=True refuses anything but tensors and plain containers.',
    ...(scripted ? ['# its __setstate__ methods: run this only on a file whose source you trust.'] : []),
    'import torch',
    'from safetensors.torch import save_file',
    '',
  ];
  const unknown = pickle.globals.filter((use) => use.risk === 'unknown');
  if (scripted) {
    notes.push(
      'A TorchScript archive (torch.jit.save): torch.load refuses weights_only=True for it and hands it to torch.jit.load, which runs its TorchScript code. Its weights come from state_dict().',
    );
    if (quantized.length > 0) {
      notes.push(
        'Its quantized modules keep their weights packed, outside state_dict(): this saves only what state_dict() holds. Convert the float model before quantization instead.',
      );
    }
  } else if (pickle.weightsOnly === 'refuses' && unknown.length > 0) {
    const listed = unknown.map((use) => `${use.module}.${use.name}`).join(', ');
    notes.push(
      `weights_only=True refuses this file because it imports ${listed}. Only if you trust its source: import those classes and wrap the load in torch.serialization.safe_globals([...]) (torch ≥ 2.5), never weights_only=False outside a sandbox.`,
    );
    lines.push(`# weights_only=True refuses this file: it imports ${listed}.`);
    lines.push('# Only if you trust the source, allow exactly those classes:');
    lines.push('#   with torch.serialization.safe_globals([...]):');
  }
  const preamble = lines.length;
  lines.push(
    scripted
      ? `ckpt = torch.jit.load(${py(fileName)}, map_location="cpu")`
      : `ckpt = torch.load(${sharded ? 'shard' : py(fileName)}, map_location="cpu", weights_only=True)`,
  );
  if (scripted) {
    lines.push('state_dict = ckpt.state_dict()  # a TorchScript module, not a state dict');
  } else if (checkpoint.rootModule) {
    // A whole pickled nn.Module (torch.save(model)): its weights come from state_dict(), not from a key.
    notes.push(
      'A whole nn.Module was pickled (torch.save(model)), so loading it imports its class; its weights come from state_dict().',
    );
    lines.push('state_dict = ckpt.state_dict()  # a whole nn.Module was pickled, not a state dict');
  } else if (weights === '') {
    lines.push('state_dict = ckpt');
  } else {
    lines.push(`state_dict = ckpt[${py(weights)}]  # the model weights; other sections are training state`);
  }
  const others = checkpoint.sections.filter((section) => section.kind !== 'weights' && section.path !== '');
  if (others.length > 0) {
    notes.push(
      `Left out: ${others.map((section) => `${section.path} (${section.kind})`).join(', ')}. Only the weights go into the safetensors file.`,
    );
  }
  lines.push('# Tensors only: drops non-tensor entries such as step counters.');
  if (prefix) {
    lines.push(`# Strips the ${py(prefix)} prefix the training wrapper added to every name.`);
    lines.push(
      `state_dict = {k.removeprefix(${py(prefix)}): v for k, v in state_dict.items() if isinstance(v, torch.Tensor)}`,
    );
  } else {
    lines.push('state_dict = {k: v for k, v in state_dict.items() if isinstance(v, torch.Tensor)}');
  }
  compositeSteps(checkpoint.composites, weights, lines, notes);
  // Names the table lists that state_dict() may lack: another shard's, or a TorchScript module's packed weights
  // and plain attributes.
  const lenient = sharded || scripted;
  const tied = checkpoint.tied
    .map(([kept, dropped]) => [weightKey(kept, weights, prefix), weightKey(dropped, weights, prefix)])
    .filter((pair): pair is [string, string] => pair[0] !== null && pair[1] !== null);
  if (tied.length > 0) {
    lines.push('# Tied weights: save_file refuses two names on one storage; keep the first name of each pair.');
    lines.push('# (transformers re-ties them on load from the model config.)');
    if (tied.length <= MAX_LISTED_NAMES) {
      for (const [kept, dropped] of tied) {
        lines.push(`state_dict.pop(${py(dropped)}${lenient ? ', None' : ''})  # same storage as ${kept}`);
      }
    } else {
      lines.push(`for name in ${pyList(tied.map(([, dropped]) => dropped))}:`);
      lines.push(lenient ? '    state_dict.pop(name, None)' : '    state_dict.pop(name)');
    }
  }
  const tiedDropped = new Set(tied.map(([, dropped]) => dropped));
  const views = checkpoint.views
    .map((name) => weightKey(name, weights, prefix))
    .filter((key): key is string => key !== null && !tiedDropped.has(key));
  if (views.length > 0) {
    lines.push('# Views (transposed, sliced or part of a larger storage): give each its own compact storage.');
    if (views.length <= MAX_LISTED_NAMES) {
      lines.push(`for name in ${pyList(views)}:`);
      if (lenient) {
        lines.push(
          `    if name in state_dict:  # ${sharded ? 'each shard holds some of them' : 'packed weights and plain attributes are not in it'}`,
        );
        lines.push('        state_dict[name] = state_dict[name].contiguous().clone()');
      } else {
        lines.push('    state_dict[name] = state_dict[name].contiguous().clone()');
      }
    } else {
      lines.push('state_dict = {k: v.contiguous().clone() for k, v in state_dict.items()}');
    }
  } else {
    lines.push('state_dict = {k: v.contiguous() for k, v in state_dict.items()}');
  }
  if (quantized.length > 0) {
    notes.push(
      `${quantized.length} tensor${quantized.length === 1 ? ' is' : 's are'} quantized (${[...new Set(quantized)].join(', ')}): safetensors has no quantized dtype, so save_file refuses them. Dequantize them (t.dequantize()) or store their int_repr() with the scale and zero point as separate tensors.`,
    );
    lines.push('# Quantized tensors: safetensors has no quantized dtype; store their dequantized values.');
    lines.push('state_dict = {k: v.dequantize() if v.is_quantized else v for k, v in state_dict.items()}');
  }
  if (!sharded) {
    lines.push(`save_file(state_dict, ${py(target)}, metadata={"format": "pt"})`);
    return { kind: 'script', code: lines.join('\n'), notes };
  }
  const perShard = lines.splice(preamble).map((line) => `    ${line}`);
  lines.splice(1, 0, 'import json');
  lines.push(
    `index = json.load(open(${py(fileName)}))`,
    '# pytorch_model-00001-of-00002.bin → model-00001-of-00002.safetensors, as the Hub names conversions.',
    'renamed = {shard: shard.replace("pytorch_model", "model").replace(".bin", ".safetensors") for shard in set(index["weight_map"].values())}',
    'for shard, converted in sorted(renamed.items()):',
    ...perShard,
    '    save_file(state_dict, converted, metadata={"format": "pt"})',
    'index["weight_map"] = {name: renamed[shard] for name, shard in index["weight_map"].items()}',
    `json.dump(index, open(${py(target)}, "w"), indent=2)`,
  );
  notes.push('A shard set: each shard is converted on its own, and a new index names the converted shards.');
  return { kind: 'script', code: lines.join('\n'), notes };
}

/**
 * Sparse tensors become dense (save_file takes strided tensors only); nested tensors and subclasses have no one
 * dense form, so the notes say what to decide.
 */
function compositeSteps(
  composites: CheckpointSummary['composites'],
  weights: string,
  lines: string[],
  notes: string[],
): void {
  const inWeights = composites.filter((composite) => weights === '' || composite.name.startsWith(`${weights}.`));
  const kinds = new Set(inWeights.map((composite) => composite.kind));
  const families = new Set([...kinds].map(compositeFamily));
  if (families.has('sparse')) {
    lines.push('# Sparse tensors: safetensors holds dense ones only.');
    lines.push('state_dict = {k: v.to_dense() if v.layout != torch.strided else v for k, v in state_dict.items()}');
  }
  if (families.has('nested')) {
    notes.push(
      'Nested tensors have no one dense shape: pad them (t.to_padded_tensor(0)) or save each of t.unbind() under a name of its own before save_file.',
    );
  }
  const subclasses = [...kinds].filter((kind) => ['dtensor', 'subclass'].includes(compositeFamily(kind)));
  if (subclasses.length > 0) {
    notes.push(
      `Tensor subclasses (${subclasses.join(', ')}) load as their class: turn each into a plain tensor first${families.has('dtensor') ? " (a DTensor: t.full_tensor() in its process group, since this file holds one rank's shard of it; t.to_local() keeps only that shard)" : ''}.`,
    );
  }
}

function pyList(names: readonly string[]): string {
  return `[${names.map(py).join(', ')}]`;
}

/**
 * A Distributed Checkpoint's weights to safetensors: DCP fills tensors it is given (torch ≥ 2.3 loads without a
 * process group), so the script asks the metadata for the weights' sizes and dtypes, leaves every other section out,
 * and saves what DCP read. The `.distcp` archives are read by DCP itself, not by torch.load.
 */
function dcpAdvice(fileName: string, header: ParsedHeader): ConvertAdvice {
  const checkpoint = header.checkpoint;
  if (!checkpoint || checkpoint.weights === null) {
    return {
      kind: 'no-weights',
      reason: 'No entry of this checkpoint is a model weight, so there is nothing to convert.',
    };
  }
  const folder = fileName.includes('/') ? fileName.slice(0, fileName.lastIndexOf('/')) : '.';
  const others = checkpoint.sections.filter((section) => section.kind !== 'weights').map((section) => section.path);
  const keep =
    others.length > 0
      ? ` and not name.startswith((${others.map((path) => py(`${path}.`)).join(', ')}${others.length === 1 ? ',' : ''}))`
      : '';
  const lines = [
    "# Converts a Distributed Checkpoint's model weights to safetensors (torch >= 2.3: DCP loads without a process group).",
    'import torch',
    'import torch.distributed.checkpoint as dcp',
    'from safetensors.torch import save_file',
    '',
    `folder = ${py(folder)}  # the folder with .metadata and the .distcp files`,
    'metadata = dcp.FileSystemReader(folder).read_metadata()',
    "# Empty tensors of the weights' sizes and dtypes, which DCP fills from the .distcp files.",
    'state_dict = {',
    '    name: torch.empty(meta.size, dtype=meta.properties.dtype)',
    '    for name, meta in metadata.state_dict_metadata.items()',
    `    if isinstance(meta, dcp.metadata.TensorStorageMetadata)${keep}`,
    '}',
    'dcp.load(state_dict, checkpoint_id=folder)',
  ];
  lines.push(`save_file(state_dict, "model.safetensors", metadata={"format": "pt"})`);
  const notes = [
    "DCP unpickles the .metadata with plain pickle: run this only on a checkpoint this page found to import nothing but DCP's own classes.",
  ];
  if (others.length > 0) {
    notes.push(`Left out: ${others.join(', ')}. Only the weights go into the safetensors file.`);
  }
  const names = allTensorNames(header.tensors).filter((name) => !others.some((path) => name.startsWith(`${path}.`)));
  if (names.length > 0 && names.every((name) => name.startsWith('model.'))) {
    notes.push(
      'Every weight name starts with "model.": DCP writes it when the training loop saved {"model": …}, and Hugging ' +
        "Face models start so on their own. If your loader expects the model's own names, strip the one DCP added " +
        '(name.removeprefix("model.")).',
    );
  }
  return { kind: 'script', code: lines.join('\n'), notes };
}
