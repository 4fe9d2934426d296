import { describe, expect, it } from 'vitest';
import { inputFromFixture, type ModelFixture } from '../../testing/models/header-from-specs';
import { tinyLlamaFixture } from '../../testing/models/plain-models';
import { torchFixtureHeader } from '../../testing/torch-fixtures';
import { allTensorNames } from '../model';
import { analyzeArchitecture } from './architecture';

/** TinyLlama/TinyLlama-1.1B-Chat-v1.0's config.json, with tie_word_embeddings as given. */
function config(tie: boolean | undefined) {
  return {
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    hidden_size: 2048,
    num_attention_heads: 32,
    num_hidden_layers: 22,
    num_key_value_heads: 4,
    vocab_size: 32000,
    ...(tie === undefined ? {} : { tie_word_embeddings: tie }),
  };
}

function withoutHead(fixture: ModelFixture): ModelFixture {
  return { ...fixture, specs: fixture.specs.filter((spec) => spec.name !== 'lm_head.weight') };
}

function tying(fixture: ModelFixture, tie: boolean | undefined) {
  const { findings } = analyzeArchitecture(inputFromFixture({ ...fixture, sidecars: { config: config(tie) } }));
  return findings.filter((finding) => finding.code.startsWith('config-head-'));
}

describe('tie_word_embeddings against the LM head the weights hold', () => {
  it('untied with no head: from_pretrained makes one at random, an error naming the embedding', () => {
    const fixture = withoutHead(tinyLlamaFixture(22));
    const [finding] = tying(fixture, false);
    expect(finding).toMatchObject({ code: 'config-head-missing', severity: 'error', tensors: [0] });
    expect(finding.message).toContain(
      'config.json sets tie_word_embeddings to false, but the weights hold no LM head beside model.embed_tokens.weight',
    );
  });

  it('tied with a head saved beside the embedding: the head is never read, a warning naming both', () => {
    const fixture = tinyLlamaFixture(22);
    const head = fixture.specs.findIndex((spec) => spec.name === 'lm_head.weight');
    const [finding] = tying(fixture, true);
    expect(finding).toMatchObject({ code: 'config-head-ignored', severity: 'warning', tensors: [head, 0] });
    expect(finding.message).toContain('never read lm_head.weight (');
  });

  it('says nothing when the config and the weights agree, or the config does not write the key', () => {
    expect(tying(tinyLlamaFixture(22), false)).toEqual([]);
    expect(tying(withoutHead(tinyLlamaFixture(22)), true)).toEqual([]);
    expect(tying(tinyLlamaFixture(22), undefined)).toEqual([]);
    expect(tying(withoutHead(tinyLlamaFixture(22)), undefined)).toEqual([]);
  });

  it('a shard of a larger model (layers missing) is not blamed for a head another shard may hold', () => {
    const fixture = withoutHead(tinyLlamaFixture(22));
    fixture.specs = fixture.specs.filter((spec) => !/^model\.layers\.(1[0-9]|2[01])\./.test(spec.name));
    expect(tying(fixture, false)).toEqual([]);
  });
});

describe('an LM head a checkpoint saved as the embedding’s own storage', () => {
  it('reads GPT-2’s pytorch_model.bin, whose lm_head.weight is transformer.wte.weight, as tied (fixtures/torch)', async () => {
    const header = await torchFixtureHeader('gpt2-tied/pytorch_model.bin');
    const names = allTensorNames(header.tensors);
    expect(names).toContain('lm_head.weight');
    const { section, findings } = analyzeArchitecture({
      header,
      names,
      fileName: 'pytorch_model.bin',
      sidecars: {},
      tensorBytes: new Map(),
    });
    expect(section?.tiedEmbeddings).toBe(true);
    expect(section?.evidence).toContain(
      'lm_head.weight shares its storage with transformer.wte.weight: tied embeddings (the checkpoint saved one tensor under both names)',
    );
    expect(findings).toEqual([]);
  });
});
