import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import {
  chatmlTokenizerConfig,
  llama3GenerationConfig,
  llama3TokenizerConfig,
  tokenizerSectionOf,
} from '../../../testing/models/tokenizer-files';
import { endOfTurn, endOfTurnFinding } from './end-of-turn';
import { withTokenizerFile, type TokenizerFiles } from './tokenizer-files';
import { withRenderedSample } from './tokenizer-sample';
import { renderChatPreview } from './chat-preview';
import { tokenizerAnalysis } from './tokenizer';
import { inputFromFixture } from '../../../testing/models/header-from-specs';
import { tinyLlamaTensors } from '../../../testing/fixture-manifest';
import type { TokenizerSection } from './tokenizer-types';

const REPLY = 'Sure, here it is.';

/** The section's default template rendered on a user turn and REPLY, as transformers would pass them. */
function rendered(section: TokenizerSection): string {
  const special = (role: string) => section.special.find((token) => token.role === role)?.text ?? '';
  return new Template(section.templates[0].source).render({
    messages: [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: REPLY },
    ],
    bos_token: special('bos'),
    eos_token: special('eos'),
    add_generation_prompt: false,
  });
}

describe('where the template ends a turn, against what generation stops at', () => {
  it("warns when generation_config.json stops at <|end_of_text|> but turns end with <|eot_id|> (Llama 3's first release)", () => {
    const section = tokenizerSectionOf({
      'tokenizer_config.json': llama3TokenizerConfig(),
      'generation_config.json': llama3GenerationConfig(false),
    });
    const end = endOfTurn(rendered(section), REPLY, section);
    expect(end).toEqual({
      text: '<|eot_id|>',
      id: 254,
      stops: false,
      stopsAt: 'generation_config.json: 251 (<|end_of_text|>)',
    });
    const finding = endOfTurnFinding(end, section);
    expect(finding?.severity).toBe('warning');
    expect(finding?.message).toBe(
      "The chat template ends the assistant's turn with <|eot_id|> (id 254), but generation stops only at " +
        'generation_config.json: 251 (<|end_of_text|>): generate(), and servers that take their stop tokens from ' +
        'these files, run past the end of each reply and write the next turn themselves. Add 254 to eos_token_id ' +
        'in generation_config.json.',
    );
  });

  it('is quiet once the stop list holds the turn’s end', () => {
    const section = tokenizerSectionOf({
      'tokenizer_config.json': llama3TokenizerConfig(),
      'generation_config.json': llama3GenerationConfig(true),
    });
    const end = endOfTurn(rendered(section), REPLY, section);
    expect(end?.stops).toBe(true);
    expect(endOfTurnFinding(end, section)).toBeNull();
  });

  it("without generation_config.json, compares with the tokenizer's eos_token", () => {
    const chatml = tokenizerSectionOf({ 'tokenizer_config.json': chatmlTokenizerConfig(false) });
    expect(endOfTurn(rendered(chatml), REPLY, chatml)).toMatchObject({ text: '<|im_end|>', stops: true });
    const wrongEos = tokenizerSectionOf({
      'tokenizer_config.json': { ...chatmlTokenizerConfig(false), eos_token: '</s>' },
    });
    const end = endOfTurn(rendered(wrongEos), REPLY, wrongEos);
    expect(end).toMatchObject({ text: '<|im_end|>', stops: false, stopsAt: 'tokenizer_config.json: eos_token </s>' });
    expect(endOfTurnFinding(end, wrongEos)?.message).toMatch(
      /Add a generation_config\.json whose eos_token_id includes 255 \(it takes precedence over config\.json's\)\.$/,
    );
  });

  it('tells nothing when no known token follows the reply, or when the stop ids cannot be matched', () => {
    const plain = tokenizerSectionOf({
      'tokenizer_config.json': {
        ...llama3TokenizerConfig(),
        chat_template: '{% for m in messages %}{{ m.content }}\n{% endfor %}',
      },
    });
    expect(endOfTurn(rendered(plain), REPLY, plain)).toBeNull();
    // A token the config gives no id for, against a stop list of ids: unknown, not a warning.
    const noIds = tokenizerSectionOf({
      'tokenizer_config.json': { ...llama3TokenizerConfig(), added_tokens_decoder: {}, eos_token: '<|eot_id|>' },
      'generation_config.json': llama3GenerationConfig(false),
    });
    const end = endOfTurn(rendered(noIds), REPLY, noIds);
    expect(end).toMatchObject({ text: '<|eot_id|>', id: null, stops: null });
    expect(endOfTurnFinding(end, noIds)).toBeNull();
    expect(endOfTurn('no reply here', REPLY, noIds)).toBeNull();
  });

  it('the analysis checks the sample the worker rendered, and raises the finding with the Findings list', async () => {
    let files: TokenizerFiles = {};
    files = withTokenizerFile(files, 'tokenizer_config.json', llama3TokenizerConfig());
    files = withTokenizerFile(files, 'generation_config.json', llama3GenerationConfig(false));
    const tokenizer = await withRenderedSample(files, renderChatPreview);
    expect(tokenizer?.renderedSample).toMatchObject({ ok: true, note: null });
    const fixture = { fileName: 'model.safetensors', specs: tinyLlamaTensors(), sidecars: { tokenizer } };
    const { section, findings } = tokenizerAnalysis.run(inputFromFixture(fixture));
    expect(section?.turnEnd).toMatchObject({ text: '<|eot_id|>', id: 254, stops: false });
    expect(findings.map((finding) => finding.code)).toEqual(['end-of-turn-not-stop']);
    // Unrendered (a load that never read the files' sample), the section says nothing of the turn's end.
    const unrendered = tokenizerAnalysis.run(inputFromFixture({ ...fixture, sidecars: { tokenizer: files } }));
    expect(unrendered.section?.turnEnd).toBeNull();
    expect(unrendered.findings).toEqual([]);
  });

  it('renders nothing without a default template', async () => {
    const files = withTokenizerFile({}, 'generation_config.json', llama3GenerationConfig(true));
    expect(await withRenderedSample(files, renderChatPreview)).toBe(files);
    expect(await withRenderedSample(undefined, renderChatPreview)).toBeUndefined();
  });

  it("without generation_config.json, generate() stops at config.json's eos_token_id, and the check says so", async () => {
    const tokenizer = await withRenderedSample(
      withTokenizerFile({}, 'tokenizer_config.json', llama3TokenizerConfig()),
      renderChatPreview,
    );
    const run = (config: unknown) =>
      tokenizerAnalysis.run(
        inputFromFixture({ fileName: 'model.safetensors', specs: tinyLlamaTensors(), sidecars: { tokenizer, config } }),
      );
    // The tokenizer's eos_token is <|eot_id|>, but config.json's eos_token_id is <|end_of_text|>'s.
    const stale = run({ architectures: ['LlamaForCausalLM'], eos_token_id: 251 });
    expect(stale.section?.turnEnd).toMatchObject({ stops: false, stopsAt: 'config.json: 251 (<|end_of_text|>)' });
    expect(stale.findings.map((finding) => finding.code)).toEqual(['end-of-turn-not-stop']);
    expect(run({ eos_token_id: [251, 254] }).findings).toEqual([]);
    // No eos_token_id there: the tokenizer's eos_token, which is the turn's end.
    expect(run({ architectures: ['LlamaForCausalLM'] }).section?.turnEnd).toMatchObject({
      stops: true,
      stopsAt: 'tokenizer_config.json: eos_token <|eot_id|>',
    });
  });
});
