/**
 * Renders a GGUF chat template on a sample conversation with @huggingface/jinja, which interprets the template
 * (no code is generated or run). Loaded on first use, so the interpreter costs nothing until a GGUF tab opens.
 */
import type { GgufSummary } from '../../core/formats/sections';

export const SAMPLE_CONVERSATION = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'What is a GGUF file?' },
  { role: 'assistant', content: 'A single-file model format for llama.cpp.' },
  { role: 'user', content: 'Thanks!' },
];

export type ChatPreview = { ok: true; text: string } | { ok: false; reason: string };

function specialText(gguf: GgufSummary, role: string): string {
  return gguf.tokenizer?.special.find((token) => token.role === role)?.text ?? '';
}

export async function renderChatPreview(gguf: GgufSummary): Promise<ChatPreview> {
  if (gguf.chatTemplate === null) {
    return { ok: false, reason: 'The file has no tokenizer.chat_template key.' };
  }
  try {
    const { Template } = await import('@huggingface/jinja');
    const template = new Template(gguf.chatTemplate);
    const text = template.render({
      messages: SAMPLE_CONVERSATION,
      add_generation_prompt: true,
      bos_token: specialText(gguf, 'bos'),
      eos_token: specialText(gguf, 'eos'),
    });
    return { ok: true, text };
  } catch (error) {
    return {
      ok: false,
      reason: `The template could not be rendered here: ${error instanceof Error ? error.message : String(error)}. llama.cpp's own Jinja engine (minja) may still accept it.`,
    };
  }
}
