import { describe, expect, it } from 'vitest';
import { defaultChoice, modelChoices, sidecarsFor, type ModelChoice } from './choose-model';
import { parseShardIndex, type ShardIndex } from './index-parser';
import { groupFiles } from './shard-names';

function shards(prefix: string, count: number): string[] {
  const pad = (n: number) => String(n).padStart(5, '0');
  return Array.from({ length: count }, (_, i) => `${prefix}-${pad(i + 1)}-of-${pad(count)}.safetensors`);
}

function index(weightMap: Record<string, string>): ShardIndex {
  const result = parseShardIndex(new TextEncoder().encode(JSON.stringify({ weight_map: weightMap })));
  if (!result.ok) {
    throw new Error(result.finding.message);
  }
  return result.index;
}

function choicesOf(paths: string[], sizes?: Record<string, number>): ModelChoice[] {
  return modelChoices(groupFiles(paths), sizes ? new Map(Object.entries(sizes)) : undefined);
}

describe('modelChoices', () => {
  it('makes one choice of a sharded model with its index, and one per unrelated file', () => {
    const choices = choicesOf([
      'model.safetensors.index.json',
      ...shards('model', 3),
      'vae.safetensors',
      'config.json',
      'README.md',
    ]);
    expect(choices.map((choice) => [choice.key, choice.kind, choice.shardCount])).toEqual([
      ['model.safetensors.index.json', 'sharded', 3],
      ['vae.safetensors', 'single', 1],
    ]);
    expect(choices[0].files).toEqual(shards('model', 3));
    expect(choices[0].indexFile).toBe('model.safetensors.index.json');
    expect(choices[0].label).toBe('model');
  });

  it('keys a pattern group without an index by its prefix', () => {
    const [choice] = choicesOf(shards('sub/model', 2));
    expect(choice).toMatchObject({
      key: 'sub/model-*',
      kind: 'sharded',
      folder: 'sub/',
      label: 'sub/model',
      shardCount: 2,
    });
  });

  it('sums sizes only when every size is known', () => {
    const files = shards('model', 2);
    expect(choicesOf(files, { [files[0]]: 10, [files[1]]: 32 })[0].bytes).toBe(42);
    expect(choicesOf(files, { [files[0]]: 10 })[0].bytes).toBeNull();
    expect(choicesOf(files)[0].bytes).toBeNull();
  });

  it('offers an index whose shards do not follow the naming pattern', () => {
    const choices = choicesOf(['weights.safetensors.index.json', 'a.safetensors', 'b.safetensors']);
    expect(choices.map((choice) => choice.key)).toEqual([
      'a.safetensors',
      'b.safetensors',
      'weights.safetensors.index.json',
    ]);
    expect(choices[2]).toMatchObject({ kind: 'sharded', indexFile: 'weights.safetensors.index.json', shardCount: 0 });
  });

  it('uses parsed indexes to claim unconventionally named shards', () => {
    const paths = ['m/model.safetensors.index.json', 'm/a.safetensors', 'm/b.safetensors', 'other.safetensors'];
    const grouping = groupFiles(paths, [
      { file: 'm/model.safetensors.index.json', index: index({ x: 'a.safetensors', y: 'b.safetensors' }) },
    ]);
    const choices = modelChoices(grouping);
    expect(choices.map((choice) => [choice.key, choice.files])).toEqual([
      ['other.safetensors', ['other.safetensors']],
      ['m/model.safetensors.index.json', ['m/a.safetensors', 'm/b.safetensors']],
    ]);
  });

  it('lists the root first, then folders by name', () => {
    const choices = choicesOf(['vae/x.safetensors', 'unet/y.safetensors', 'z.safetensors']);
    expect(choices.map((choice) => choice.key)).toEqual(['z.safetensors', 'unet/y.safetensors', 'vae/x.safetensors']);
  });
});

describe('defaultChoice', () => {
  it('is null when there is nothing to open', () => {
    expect(defaultChoice([])).toBeNull();
  });

  it('prefers the root over subfolders', () => {
    const choices = choicesOf(['transformer/model.safetensors', 'adapter.safetensors']);
    expect(defaultChoice(choices)?.key).toBe('adapter.safetensors');
  });

  it('in a diffusers pipeline, opens the denoiser before text encoders and the VAE', () => {
    const flux = choicesOf([
      'model_index.json',
      'text_encoder/model.safetensors',
      'text_encoder_2/model.safetensors.index.json',
      ...shards('text_encoder_2/model', 2),
      'transformer/diffusion_pytorch_model.safetensors.index.json',
      ...shards('transformer/diffusion_pytorch_model', 3),
      'vae/diffusion_pytorch_model.safetensors',
    ]);
    expect(defaultChoice(flux)?.key).toBe('transformer/diffusion_pytorch_model.safetensors.index.json');
    const sd = choicesOf([
      'vae/diffusion_pytorch_model.safetensors',
      'unet/diffusion_pytorch_model.safetensors',
      'text_encoder/model.safetensors',
    ]);
    expect(defaultChoice(sd)?.key).toBe('unet/diffusion_pytorch_model.safetensors');
  });

  it('in one folder: a sharded model with index, then canonical names, then the largest file', () => {
    expect(
      defaultChoice(choicesOf(['a.safetensors', 'model.safetensors.index.json', ...shards('model', 2)]))?.key,
    ).toBe('model.safetensors.index.json');
    expect(defaultChoice(choicesOf(['zzz.safetensors', 'model.safetensors', 'model.fp16.safetensors']))?.key).toBe(
      'model.safetensors',
    );
    const sizes = { 'small.safetensors': 10, 'big.safetensors': 1000, 'mid.safetensors': 100 };
    expect(defaultChoice(choicesOf(Object.keys(sizes), sizes))?.key).toBe('big.safetensors');
  });

  it('places unknown folders after the diffusers ones', () => {
    const choices = choicesOf(['checkpoints/a.safetensors', 'vae/b.safetensors']);
    expect(defaultChoice(choices)?.key).toBe('vae/b.safetensors');
  });
});

describe('the Hugging Face cache', () => {
  it('labels a snapshot folder by repository and revision, and keeps each revision apart', () => {
    const commit = '4e20de362430cd3b72f300e6b0f18e50e7166e08';
    const other = '0cb88a4f764b7a12671c53f0838cd831a0843b95';
    const base = 'hub/models--meta-llama--Llama-3.2-1B/snapshots';
    const choices = choicesOf([
      `${base}/${commit}/model.safetensors`,
      `${base}/${commit}/config.json`,
      `${base}/${other}/model.safetensors`,
      ...shards(`hub/models--Qwen--Qwen3-8B/snapshots/${commit}/model`, 5),
      'hub/models--Qwen--Qwen3-8B/blobs/aa1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d',
    ]);
    expect(choices.map((choice) => choice.label)).toEqual([
      'Qwen/Qwen3-8B@4e20de3/model',
      'meta-llama/Llama-3.2-1B@0cb88a4/model.safetensors',
      'meta-llama/Llama-3.2-1B@4e20de3/model.safetensors',
    ]);
    expect(choices.every((choice) => choice.name === undefined)).toBe(true);
  });
});

describe('sidecarsFor', () => {
  const paths = [
    'config.json',
    'adapter_config.json',
    'transformer/config.json',
    'transformer/diffusion_pytorch_model.safetensors',
    'vae/diffusion_pytorch_model.safetensors',
    'model.safetensors',
  ];
  const grouping = groupFiles(paths);
  const choices = modelChoices(grouping);
  const byKey = (key: string) => {
    const choice = choices.find((candidate) => candidate.key === key);
    if (!choice) {
      throw new Error(key);
    }
    return choice;
  };

  it('takes the sidecar in the model folder over one further up', () => {
    expect(sidecarsFor(byKey('transformer/diffusion_pytorch_model.safetensors'), grouping.sidecars)).toEqual({
      config: 'transformer/config.json',
      adapterConfig: 'adapter_config.json',
    });
  });

  it('falls back to the nearest folder above', () => {
    expect(sidecarsFor(byKey('vae/diffusion_pytorch_model.safetensors'), grouping.sidecars)).toEqual({
      config: 'config.json',
      adapterConfig: 'adapter_config.json',
    });
  });

  it('never takes a sidecar from a sibling folder', () => {
    const only = groupFiles(['vae/config.json', 'model.safetensors']);
    expect(sidecarsFor(modelChoices(only)[0], only.sidecars)).toEqual({});
  });
});

describe('sidecarsFor with trainer_state.json (a training run)', () => {
  const paths = [
    'model.safetensors',
    'config.json',
    'trainer_state.json',
    'checkpoint-500/model.safetensors',
    'checkpoint-500/config.json',
    'checkpoint-500/optimizer.pt',
    'checkpoint-500/trainer_state.json',
    'checkpoint-1000/model.safetensors',
  ];
  const grouping = groupFiles(paths);
  const choices = modelChoices(grouping);
  const of = (key: string) => {
    const choice = choices.find((candidate) => candidate.key === key);
    if (!choice) {
      throw new Error(key);
    }
    return sidecarsFor(choice, grouping.sidecars);
  };

  it("takes each checkpoint's own, else the run folder's", () => {
    expect(of('checkpoint-500/model.safetensors').trainerState).toBe('checkpoint-500/trainer_state.json');
    expect(of('model.safetensors').trainerState).toBe('trainer_state.json');
    expect(of('checkpoint-1000/model.safetensors').trainerState).toBe('trainer_state.json');
  });

  it("gives a training-state file its run's trainer_state.json and nothing that describes the model", () => {
    expect(of('checkpoint-500/optimizer.pt')).toEqual({ trainerState: 'checkpoint-500/trainer_state.json' });
  });
});

describe("sidecarsFor with a params.json (the reference code's config)", () => {
  const configOf = (paths: string[], key: string) => {
    const grouping = groupFiles(paths);
    const choice = modelChoices(grouping).find((candidate) => candidate.key === key);
    if (!choice) {
      throw new Error(key);
    }
    return sidecarsFor(choice, grouping.sidecars).config;
  };

  it("gives Mistral's consolidated.safetensors its params.json, and the transformers copy beside it config.json", () => {
    // The layout of mistralai/Mistral-7B-Instruct-v0.3: both copies of the weights in one folder.
    const paths = [
      'config.json',
      'params.json',
      'consolidated.safetensors',
      ...shards('model', 3),
      'model.safetensors.index.json',
    ];
    expect(configOf(paths, 'consolidated.safetensors')).toBe('params.json');
    expect(configOf(paths, 'model.safetensors.index.json')).toBe('config.json');
    expect(configOf(['params.json', ...shards('consolidated', 2)], 'consolidated-*')).toBe('params.json');
  });

  it("gives Meta's original/consolidated.00.pth the params.json in its folder over the config.json above", () => {
    const paths = ['config.json', ...shards('model', 4), 'original/params.json', 'original/consolidated.00.pth'];
    expect(configOf(paths, 'original/consolidated.00.pth')).toBe('original/params.json');
  });

  it('takes a params.json for other weights only where no config.json applies', () => {
    expect(configOf(['params.json', 'model.safetensors'], 'model.safetensors')).toBe('params.json');
    expect(configOf(['params.json', 'config.json', 'model.safetensors'], 'model.safetensors')).toBe('config.json');
    // A config.json in the model's own folder beats a params.json further up, even for native weights.
    expect(
      configOf(['params.json', 'sub/config.json', 'sub/consolidated.safetensors'], 'sub/consolidated.safetensors'),
    ).toBe('sub/config.json');
  });
});

describe('PyTorch .bin models among the choices', () => {
  const binShards = ['pytorch_model-00001-of-00002.bin', 'pytorch_model-00002-of-00002.bin'];

  it('opens a repo that ships only .bin shards and their index like a safetensors repo', () => {
    const choices = choicesOf([...binShards, 'pytorch_model.bin.index.json', 'config.json']);
    expect(choices.map((choice) => [choice.key, choice.kind, choice.shardCount, choice.label])).toEqual([
      ['pytorch_model.bin.index.json', 'sharded', 2, 'pytorch_model'],
    ]);
    expect(defaultChoice(choices)?.files).toEqual(binShards);
  });

  it('prefers safetensors when a folder has both, and keeps the .bin model as another choice', () => {
    const choices = choicesOf([
      ...binShards,
      'pytorch_model.bin.index.json',
      ...shards('model', 2),
      'model.safetensors.index.json',
    ]);
    expect(defaultChoice(choices)?.key).toBe('model.safetensors.index.json');
    expect(choices.map((choice) => choice.key).sort()).toEqual([
      'model.safetensors.index.json',
      'pytorch_model.bin.index.json',
    ]);
    // A single safetensors file still wins over .bin shards with an index.
    const single = choicesOf([...binShards, 'pytorch_model.bin.index.json', 'weights.safetensors']);
    expect(defaultChoice(single)?.key).toBe('weights.safetensors');
  });

  it('prefers pytorch_model.bin over other .bin files, and any safetensors over it', () => {
    const sizes = { 'pytorch_model.bin': 10, 'optimizer.bin': 1000, 'training_args.bin': 5 };
    expect(defaultChoice(choicesOf(Object.keys(sizes), sizes))?.key).toBe('pytorch_model.bin');
    expect(defaultChoice(choicesOf(['pytorch_model.bin', 'model.safetensors']))?.key).toBe('model.safetensors');
  });

  it('.bin shards without an index get a key of their own', () => {
    const choices = choicesOf([...binShards, ...shards('pytorch_model', 2)]);
    expect(choices.map((choice) => choice.key).sort()).toEqual(['pytorch_model-*', 'pytorch_model-*.bin']);
    expect(defaultChoice(choices)?.key).toBe('pytorch_model-*');
  });
});

describe("sidecarsFor with the tokenizer's files", () => {
  const tokenizerOf = (paths: string[], key: string) => {
    const grouping = groupFiles(paths);
    const choice = modelChoices(grouping).find((candidate) => candidate.key === key);
    if (!choice) {
      throw new Error(key);
    }
    return sidecarsFor(choice, grouping.sidecars).tokenizer;
  };

  it('takes each name from the nearest folder at or above the model, in the order they are applied', () => {
    // Meta's layout: the transformers copy at the top, the reference weights in original/ (its tokenizer is the same).
    const paths = [
      'generation_config.json',
      'special_tokens_map.json',
      'tokenizer_config.json',
      'model.safetensors',
      'original/consolidated.00.pth',
      'original/params.json',
      'sub/chat_template.jinja',
    ];
    expect(tokenizerOf(paths, 'model.safetensors')).toEqual([
      'tokenizer_config.json',
      'generation_config.json',
      'special_tokens_map.json',
    ]);
    expect(tokenizerOf(paths, 'original/consolidated.00.pth')).toEqual([
      'tokenizer_config.json',
      'generation_config.json',
      'special_tokens_map.json',
    ]);
    expect(tokenizerOf([...paths, 'original/tokenizer_config.json'], 'original/consolidated.00.pth')).toEqual([
      'original/tokenizer_config.json',
      'generation_config.json',
      'special_tokens_map.json',
    ]);
  });

  it('gives a GGUF none: its tokenizer is in its header', () => {
    expect(tokenizerOf(['model-Q4_K_M.gguf', 'tokenizer_config.json'], 'model-Q4_K_M.gguf')).toBeUndefined();
  });
});

describe("a Trainer checkpoint's folder", () => {
  const files = {
    'checkpoint-500/model.safetensors': 485_000,
    'checkpoint-500/optimizer.pt': 988_000,
    'checkpoint-500/scheduler.pt': 1_465,
    'checkpoint-500/rng_state.pth': 14_455,
    'checkpoint-500/training_args.bin': 5_201,
  };

  it('names each training-state file for what it holds, and never opens one first', () => {
    const choices = choicesOf(Object.keys(files), files);
    expect(choices.map((choice) => [choice.label, choice.trainingState])).toEqual([
      ['checkpoint-500/model.safetensors', undefined],
      ['checkpoint-500/optimizer.pt', 'optimizer state'],
      ['checkpoint-500/rng_state.pth', 'random generator state'],
      ['checkpoint-500/scheduler.pt', 'learning-rate scheduler state'],
      ['checkpoint-500/training_args.bin', 'training arguments'],
    ]);
    expect(defaultChoice(choices)?.key).toBe('checkpoint-500/model.safetensors');
  });

  it("the config.json and tokenizer beside the model are the model's, not the optimizer state's; the run's settings are both's", () => {
    const paths = [...Object.keys(files), 'checkpoint-500/config.json', 'checkpoint-500/tokenizer_config.json'];
    const grouping = groupFiles(paths);
    const choices = modelChoices(grouping);
    const model = choices.find((choice) => choice.key.endsWith('model.safetensors'));
    const optimizer = choices.find((choice) => choice.key.endsWith('optimizer.pt'));
    expect(model && sidecarsFor(model, grouping.sidecars)).toEqual({
      config: 'checkpoint-500/config.json',
      tokenizer: ['checkpoint-500/tokenizer_config.json'],
      trainingArgs: 'checkpoint-500/training_args.bin',
    });
    expect(optimizer && sidecarsFor(optimizer, grouping.sidecars)).toEqual({
      trainingArgs: 'checkpoint-500/training_args.bin',
    });
  });

  it("DeepSpeed's ZeRO partitions and a gradient scaler are training state; its model states file is the model", () => {
    const sizes = {
      'global_step500/mp_rank_00_model_states.pt': 100,
      'global_step500/bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt': 800,
      'global_step500/zero_pp_rank_1_mp_rank_00_optim_states.pt': 800,
      'scaler.pt': 1,
    };
    const choices = choicesOf(Object.keys(sizes), sizes);
    expect(choices.map((choice) => [choice.label, choice.trainingState])).toEqual([
      ['scaler.pt', 'gradient scaler state'],
      ['global_step500/bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt', 'optimizer state (a ZeRO partition)'],
      ['global_step500/mp_rank_00_model_states.pt', undefined],
      ['global_step500/zero_pp_rank_1_mp_rank_00_optim_states.pt', 'optimizer state (a ZeRO partition)'],
    ]);
    expect(defaultChoice(choices)?.key).toBe('global_step500/mp_rank_00_model_states.pt');
  });

  it('a model saved as a plain .bin still wins over the larger optimizer state beside it', () => {
    const sizes = { 'model.bin': 100, 'optimizer.pt': 200, 'random_states_0.pkl': 10 };
    expect(defaultChoice(choicesOf(Object.keys(sizes), sizes))?.key).toBe('model.bin');
  });
});

describe('sidecarsFor in a sentence-transformers folder', () => {
  const byKey = (choices: readonly ModelChoice[], key: string) => {
    const choice = choices.find((candidate) => candidate.key === key);
    if (!choice) {
      throw new Error(key);
    }
    return choice;
  };

  it('gives the transformer beside modules.json the settings and every module config', () => {
    const grouping = groupFiles([
      'model.safetensors',
      'config.json',
      'modules.json',
      'sentence_bert_config.json',
      'config_sentence_transformers.json',
      '1_Pooling/config.json',
      '2_Dense/config.json',
      '2_Dense/model.safetensors',
      'onnx/config.json',
    ]);
    const choices = modelChoices(grouping);
    expect(sidecarsFor(byKey(choices, 'model.safetensors'), grouping.sidecars)).toEqual({
      config: 'config.json',
      sentence: {
        modules: 'modules.json',
        files: [
          'sentence_bert_config.json',
          'config_sentence_transformers.json',
          '1_Pooling/config.json',
          '2_Dense/config.json',
        ],
      },
    });
    // The Dense layer's own weights are not the model modules.json describes.
    expect(sidecarsFor(byKey(choices, '2_Dense/model.safetensors'), grouping.sidecars)).toEqual({
      config: '2_Dense/config.json',
    });
  });

  it('finds the first releases’ layout: the transformer in 0_Transformer/, its settings beside it', () => {
    const grouping = groupFiles([
      'sbert/modules.json',
      'sbert/config.json',
      'sbert/0_Transformer/pytorch_model.bin',
      'sbert/0_Transformer/config.json',
      'sbert/0_Transformer/sentence_bert_config.json',
      'sbert/1_Pooling/config.json',
    ]);
    const [choice] = modelChoices(grouping);
    expect(sidecarsFor(choice, grouping.sidecars)).toEqual({
      config: 'sbert/0_Transformer/config.json',
      sentence: {
        modules: 'sbert/modules.json',
        files: ['sbert/0_Transformer/sentence_bert_config.json', 'sbert/1_Pooling/config.json'],
      },
    });
  });
});
