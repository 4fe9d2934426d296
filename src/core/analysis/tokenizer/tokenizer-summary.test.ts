import { describe, expect, it } from 'vitest';
import {
  CHATML_TEMPLATE,
  chatmlTokenizerConfig,
  LLAMA3_IDS,
  LLAMA3_TEMPLATE,
  llama3GenerationConfig,
  llama3TokenizerConfig,
  legacyTokenizerFiles,
  tokenizerFilesOf,
} from '../../../testing/models/tokenizer-files';
import { withTokenizerFile } from './tokenizer-files';
import { summarizeTokenizer } from './tokenizer-summary';

describe('summarizeTokenizer', () => {
  it('gives the special tokens their ids from added_tokens_decoder, strings and AddedToken objects alike', () => {
    const section = summarizeTokenizer(tokenizerFilesOf({ 'tokenizer_config.json': chatmlTokenizerConfig() }));
    expect(section?.special).toEqual([
      { role: 'bos', text: '<s>', id: 1 },
      { role: 'eos', text: '<|im_end|>', id: 257 },
      { role: 'pad', text: '</s>', id: 2 },
      { role: 'unk', text: '<unk>', id: 0 },
    ]);
    expect(section).toMatchObject({
      files: ['tokenizer_config.json'],
      tokenizerClass: 'LlamaTokenizer',
      // int(1e30) is transformers' "no limit".
      modelMaxLength: null,
      addBosToken: true,
      addEosToken: false,
      addedTokenCount: 5,
      highestAddedId: 257,
      templates: [{ name: 'default', source: CHATML_TEMPLATE, file: 'tokenizer_config.json' }],
      shadowedTemplate: null,
      generation: null,
    });
  });

  it('reads generate() stop ids (one or a list) and its sampling defaults in file order', () => {
    const section = summarizeTokenizer(
      tokenizerFilesOf({
        'm/tokenizer_config.json': llama3TokenizerConfig(),
        'm/generation_config.json': llama3GenerationConfig(true),
      }),
    );
    expect(section?.modelMaxLength).toBe(131072);
    expect(section?.generation).toEqual({
      file: 'm/generation_config.json',
      eosIds: [LLAMA3_IDS.end, LLAMA3_IDS.eot],
      bosId: LLAMA3_IDS.begin,
      padId: null,
      settings: [
        { key: 'do_sample', value: 'true' },
        { key: 'max_length', value: '4096' },
        { key: 'temperature', value: '0.6' },
        { key: 'top_p', value: '0.9' },
      ],
    });
    expect(
      summarizeTokenizer(tokenizerFilesOf({ 'generation_config.json': llama3GenerationConfig(false) }))?.generation
        ?.eosIds,
    ).toEqual([LLAMA3_IDS.end]);
  });

  it('takes chat_template.jinja over the inline template, names the one it replaces, and keeps named ones', () => {
    const config = {
      ...llama3TokenizerConfig(),
      chat_template: [
        { name: 'default', template: 'old {{ messages }}' },
        { name: 'tool_use', template: 'tools {{ tools }}' },
      ],
    };
    const section = summarizeTokenizer(
      tokenizerFilesOf({ 'tokenizer_config.json': config, 'chat_template.jinja': LLAMA3_TEMPLATE }),
    );
    expect(section?.templates.map((entry) => [entry.name, entry.file])).toEqual([
      ['default', 'chat_template.jinja'],
      ['tool_use', 'tokenizer_config.json'],
    ]);
    expect(section?.shadowedTemplate).toMatchObject({ name: 'default', source: 'old {{ messages }}' });
    // The same template in both places replaces nothing.
    const same = summarizeTokenizer(
      tokenizerFilesOf({ 'tokenizer_config.json': llama3TokenizerConfig(), 'chat_template.jinja': LLAMA3_TEMPLATE }),
    );
    expect(same?.templates).toHaveLength(1);
    expect(same?.shadowedTemplate).toBeNull();
  });

  it("takes a processor's chat_template.json as the default when the tokenizer has none, else as `processor`", () => {
    const processor = { chat_template: CHATML_TEMPLATE };
    const alone = summarizeTokenizer(
      tokenizerFilesOf({
        'tokenizer_config.json': { tokenizer_class: 'Qwen2Tokenizer' },
        'chat_template.json': processor,
      }),
    );
    expect(alone?.templates).toEqual([{ name: 'default', source: CHATML_TEMPLATE, file: 'chat_template.json' }]);
    const both = summarizeTokenizer(
      tokenizerFilesOf({ 'tokenizer_config.json': llama3TokenizerConfig(), 'chat_template.json': processor }),
    );
    expect(both?.templates.map((entry) => entry.name)).toEqual(['default', 'processor']);
  });

  it('leaves out what is not the type transformers reads, and gives null for no files', () => {
    expect(summarizeTokenizer({})).toBeNull();
    const section = summarizeTokenizer(
      tokenizerFilesOf({
        'tokenizer_config.json': {
          bos_token: 7,
          eos_token: { content: 3 },
          added_tokens_decoder: { x: { content: 'a' }, '-1': { content: 'b' }, 5: 'c', 9: { content: '<d>' } },
          chat_template: [{ name: 'default' }, 'x', { name: 'ok', template: '' }],
          model_max_length: '2048',
          add_bos_token: 'yes',
        },
        'generation_config.json': { eos_token_id: [1.5, -2, 'x', 4], temperature: { nested: true } },
      }),
    );
    expect(section).toMatchObject({
      special: [],
      addedTokens: [
        { id: 5, text: 'c', special: false },
        { id: 9, text: '<d>', special: false },
      ],
      templates: [],
      modelMaxLength: null,
      addBosToken: null,
      generation: { eosIds: [4], settings: [] },
    });
  });

  it('a chat template that is not text, or JSON that is not an object, adds nothing', () => {
    expect(withTokenizerFile({}, 'chat_template.jinja', { not: 'text' })).toEqual({});
    expect(withTokenizerFile({}, 'README.md', 'text')).toEqual({});
    expect(summarizeTokenizer(tokenizerFilesOf({ 'tokenizer_config.json': [1, 2] }))).toMatchObject({
      special: [],
      templates: [],
    });
  });

  it('reads an older save: special_tokens_map.json over the config, added_tokens.json for ids', () => {
    const section = summarizeTokenizer(tokenizerFilesOf(legacyTokenizerFiles()));
    expect(section).toMatchObject({
      files: ['tokenizer_config.json', 'special_tokens_map.json', 'added_tokens.json'],
      special: [
        { role: 'bos', text: '<s>', id: null },
        { role: 'eos', text: '</s>', id: null },
        { role: 'pad', text: '[PAD]', id: 256 },
        { role: 'unk', text: '<unk>', id: null },
      ],
      addedTokens: [{ id: 256, text: '[PAD]', special: true }],
      addedTokensFile: 'added_tokens.json',
      specialTokensFile: 'special_tokens_map.json',
    });
  });

  it('leaves the older files out once tokenizer_config.json has added_tokens_decoder, as transformers does', () => {
    const section = summarizeTokenizer(
      tokenizerFilesOf({ ...legacyTokenizerFiles(), 'tokenizer_config.json': chatmlTokenizerConfig(false) }),
    );
    expect(section?.files).toEqual(['tokenizer_config.json']);
    expect(section?.special.find((token) => token.role === 'pad')).toEqual({ role: 'pad', text: '</s>', id: 2 });
    expect(section).toMatchObject({
      addedTokensFile: 'tokenizer_config.json',
      specialTokensFile: 'tokenizer_config.json',
    });
  });
});
