import { describe, expect, it } from 'vitest';
import {
  CHATML_TEMPLATE,
  chatmlTokenizerConfig,
  llama3GenerationConfig,
  llama3TokenizerConfig,
} from '../../testing/models/tokenizer-files';
import { withTokenizerFile, type TokenizerFiles } from '../analysis/tokenizer/tokenizer-files';
import { summarizeTokenizer } from '../analysis/tokenizer/tokenizer-summary';
import type { TokenizerSection } from '../analysis/tokenizer/tokenizer-types';
import { diffTokenizers, templateDiff } from './tokenizer-diff';

function section(entries: Record<string, unknown>): TokenizerSection {
  let files: TokenizerFiles = {};
  for (const [path, content] of Object.entries(entries)) {
    files = withTokenizerFile(files, path, content);
  }
  const summary = summarizeTokenizer(files);
  if (summary === null) {
    throw new Error('no section');
  }
  return summary;
}

describe('diffTokenizers', () => {
  it('is identical for the same files', () => {
    const a = section({ 'tokenizer_config.json': llama3TokenizerConfig() });
    const diff = diffTokenizers(a, section({ 'tokenizer_config.json': llama3TokenizerConfig() }));
    expect(diff).toMatchObject({ identical: true, fields: [], templates: [], sameTemplates: ['default'] });
  });

  it("names a fine-tune's new tokens, its new EOS and template, and its stop ids", () => {
    const base = section({
      'tokenizer_config.json': chatmlTokenizerConfig(false),
      'generation_config.json': { eos_token_id: 2 },
    });
    const tuned = section({
      'tokenizer_config.json': {
        ...chatmlTokenizerConfig(false),
        added_tokens_decoder: {
          ...(chatmlTokenizerConfig(false).added_tokens_decoder as object),
          256: { content: '<tool_call>', special: true },
        },
        chat_template: CHATML_TEMPLATE.replace("'\\n'}}{% endfor %}", "'\\n'}}{% endfor %}{{ '<tool_call>' }}"),
        eos_token: '</s>',
      },
      'generation_config.json': llama3GenerationConfig(true),
    });
    const diff = diffTokenizers(base, tuned);
    expect(diff.identical).toBe(false);
    expect(diff.fields).toEqual([
      { field: 'EOS token', a: '<|im_end|> (255)', b: '</s> (2)' },
      { field: 'stops at', a: '2', b: '251, 254' },
    ]);
    expect(diff.onlyInB).toEqual([{ id: 256, text: '<tool_call>', special: true }]);
    expect(diff.counts).toEqual({ onlyInB: 1, onlyInA: 0, retexted: 0 });
    expect(diff.templates).toHaveLength(1);
    expect(diff.templates[0].status).toBe('changed');
    expect(diff.templates[0].lines?.filter((line) => line.kind !== 'same')).toEqual([
      { kind: 'added', text: "{{ '<tool_call>' }}" },
    ]);
  });

  it('says which templates only one side has, and tokens that changed text at the same id', () => {
    const a = section({
      'tokenizer_config.json': {
        ...llama3TokenizerConfig(),
        chat_template: [
          { name: 'default', template: 'x' },
          { name: 'rag', template: 'r' },
        ],
      },
    });
    const b = section({
      'tokenizer_config.json': {
        ...llama3TokenizerConfig(),
        added_tokens_decoder: { 250: { content: '<|begin|>', special: true } },
        chat_template: [
          { name: 'default', template: 'x' },
          { name: 'tool_use', template: 't' },
        ],
      },
    });
    const diff = diffTokenizers(a, b);
    expect(diff.templates.map((entry) => [entry.name, entry.status])).toEqual([
      ['rag', 'only-a'],
      ['tool_use', 'only-b'],
    ]);
    expect(diff.sameTemplates).toEqual(['default']);
    expect(diff.retexted).toEqual([{ id: 250, a: '<|begin_of_text|>', b: '<|begin|>' }]);
    expect(diff.counts.onlyInA).toBe(4);
  });
});

describe('templateDiff', () => {
  it('cuts one-line templates before each tag, so one changed tag is one changed piece', () => {
    expect(templateDiff('{% if a %}A{% endif %}', '{% if b %}A{% endif %}')).toEqual([
      { kind: 'removed', text: '{% if a %}A' },
      { kind: 'added', text: '{% if b %}A' },
      { kind: 'same', text: '{% endif %}' },
    ]);
  });

  it('keeps lines in order across insertions and removals', () => {
    const lines = templateDiff('one\ntwo\nthree', 'zero\none\nthree\nfour');
    expect(lines).toEqual([
      { kind: 'added', text: 'zero' },
      { kind: 'same', text: 'one' },
      { kind: 'removed', text: 'two' },
      { kind: 'same', text: 'three' },
      { kind: 'added', text: 'four' },
    ]);
  });

  it('gives up (null) past the cap rather than filling memory', () => {
    const long = Array.from({ length: 2_001 }, (_, i) => `line ${i}`).join('\n');
    expect(templateDiff(long, 'short')).toBeNull();
  });
});
