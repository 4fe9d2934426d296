/**
 * Renders a model's default chat template on the sample conversation (chat-preview.ts) so the tokenizer analysis
 * can read where a turn ends. Async because the interpreter loads on first use; the worker awaits it before the
 * analyses run, and only when tokenizer files were read, so a load without them never loads the interpreter.
 */
import type { ChatPreview, ChatTemplateInput } from './chat-preview';
import type { TokenizerFiles } from './tokenizer-files';
import { summarizeTokenizer } from './tokenizer-summary';
import type { ChatTemplateEntry, TokenizerSection } from './tokenizer-types';

/** `render` runs the interpreter: the worker passes one that stops a template that never ends (worker/template-renderer.ts). */
export async function withRenderedSample(
  files: TokenizerFiles | undefined,
  render: (input: ChatTemplateInput) => Promise<ChatPreview>,
): Promise<TokenizerFiles | undefined> {
  const summary = files ? summarizeTokenizer(files) : null;
  const template = summary?.templates.find((entry) => entry.name === 'default');
  if (files === undefined || summary === null || template === undefined) {
    return files;
  }
  return { ...files, renderedSample: await render(chatTemplateInput(summary, template)) };
}

/** What a template renders with: its source and the tokenizer's bos_token and eos_token texts, as transformers passes them. */
export function chatTemplateInput(section: TokenizerSection, template: ChatTemplateEntry): ChatTemplateInput {
  const text = (role: string) => section.special.find((token) => token.role === role)?.text ?? '';
  return { source: template.source, bos: text('bos'), eos: text('eos') };
}
