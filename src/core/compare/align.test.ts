/** Key alignment: which prefixes each rule strips, the counts the UI shows, turning rules off, and collisions. */
import { describe, expect, it } from 'vitest';
import { ALIGN_RULES, alignKey, alignSide, stripPrefixes, type AlignRule } from './align';

const ALL = ALIGN_RULES;

describe('alignment rules', () => {
  it.each([
    ['module.model.layers.0.mlp.up_proj.weight', 'layers.0.mlp.up_proj.weight'],
    ['base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight', 'layers.0.self_attn.q_proj.lora_A.weight'],
    ['_orig_mod.model.embed_tokens.weight', 'embed_tokens.weight'],
    ['module._orig_mod.lm_head.weight', 'lm_head.weight'],
    ['lm_head.weight', 'lm_head.weight'],
    ['transformer.h.0.attn.c_attn.weight', 'transformer.h.0.attn.c_attn.weight'],
    // Only leading prefixes: `model.` inside a name is structure, not a wrapper.
    ['encoder.model.layers.0.weight', 'encoder.model.layers.0.weight'],
    ['modules.0.weight', 'modules.0.weight'],
  ])('%s → %s', (name, key) => {
    expect(alignKey(name)).toBe(key);
  });

  it('never strips a name down to nothing', () => {
    expect(alignKey('model.')).toBe('model.');
    expect(alignKey('module.model.')).toBe('model.');
  });

  it('reports which rules applied as a bit mask', () => {
    const { length, mask } = stripPrefixes('module._orig_mod.x', ALL);
    expect(length).toBe('module._orig_mod.'.length);
    expect(mask).toBe((1 << ALL.indexOf('module.')) | (1 << ALL.indexOf('_orig_mod.')));
  });

  it('a rule turned off strips nothing', () => {
    const without = ALL.filter((rule) => rule !== 'model.');
    expect(alignKey('module.model.layers.0.weight', without)).toBe('model.layers.0.weight');
    expect(alignKey('model.layers.0.weight', [])).toBe('model.layers.0.weight');
  });

  it('counts names per rule and side', () => {
    const side = alignSide(['module.model.a.weight', 'module.lm_head.weight', 'model.b.weight', 'c.weight'], ALL);
    const count = (rule: AlignRule) => side.ruleCounts[ALL.indexOf(rule)];
    expect(count('module.')).toBe(2);
    expect(count('model.')).toBe(2);
    expect(count('base_model.model.')).toBe(0);
    expect(side.keys).toEqual(['a.weight', 'lm_head.weight', 'b.weight', 'c.weight']);
    expect(Array.from(side.strip)).toEqual(['module.model.'.length, 'module.'.length, 'model.'.length, 0]);
  });

  it('never merges two tensors of one file: the stripped name keeps its prefix instead', () => {
    const side = alignSide(['model.norm.weight', 'norm.weight', 'module.x', 'model.x'], ALL);
    expect(side.keys).toEqual(['model.norm.weight', 'norm.weight', 'module.x', 'model.x']);
    expect(side.collisions).toBe(3);
    expect(side.ruleCounts.every((count) => count === 0)).toBe(true);
    expect(new Set(side.keys).size).toBe(4);
  });
});
