/**
 * Renders a chat template (a GGUF's, or a transformers model's from its tokenizer files) on a sample conversation
 * with @huggingface/jinja, which interprets the template (no code is generated or run). Loaded on first use, so the
 * interpreter costs nothing until a tab shows a template.
 *
 * Templates are written for more than one renderer: transformers' apply_chat_template passes `tools` and
 * `documents` as None when there are none, llama.cpp leaves them undefined, and many templates refuse a system
 * message (`raise_exception('System role not supported')`, or roles that must alternate user/assistant). So the
 * preview tries the sample as llama.cpp would, then with transformers' None, then without the system message, then
 * with an empty tool_calls list on each message, and says which one it shows.
 */
/** The assistant's reply in the sample: what follows it in the rendered text is how the template ends a turn. */
export const SAMPLE_REPLY = 'It turns a list of messages into the prompt the model was trained on.';

export const SAMPLE_CONVERSATION = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'What is a chat template?' },
  { role: 'assistant', content: SAMPLE_REPLY },
  { role: 'user', content: 'Thanks!' },
];

/** A template and the special tokens it is rendered with (the texts of bos_token and eos_token, or ''). */
export interface ChatTemplateInput {
  source: string;
  bos: string;
  eos: string;
}

const WITHOUT_SYSTEM = SAMPLE_CONVERSATION.filter((message) => message.role !== 'system');

/** transformers' apply_chat_template renders with these set to None when the caller gives none. */
const TRANSFORMERS_NONES = { tools: null, documents: null };

/** How an attempt differs from the sample as llama.cpp passes it. */
interface Attempt {
  withoutSystem: boolean;
  /** tools and documents as transformers' None. */
  nones: boolean;
  /**
   * Each message with an empty tool_calls list: Jinja2 and minja loop zero times over a missing one, this interpreter
   * stops, and some templates loop over it on every message.
   */
  emptyToolCalls: boolean;
}

/** In order: the first that renders is shown. */
const ATTEMPTS: readonly Attempt[] = [
  { withoutSystem: false, nones: false, emptyToolCalls: false },
  { withoutSystem: false, nones: true, emptyToolCalls: false },
  { withoutSystem: true, nones: false, emptyToolCalls: false },
  { withoutSystem: true, nones: true, emptyToolCalls: false },
  { withoutSystem: false, nones: false, emptyToolCalls: true },
  { withoutSystem: true, nones: false, emptyToolCalls: true },
];

export type ChatPreview = { ok: true; text: string; note: string | null } | { ok: false; reason: string };

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Whether `message` is one the template raises itself (`raise_exception('…')` with that text): the template refused
 * the conversation, rather than the interpreter failing on the template.
 */
function raisedByTemplate(template: string, message: string): boolean {
  return message !== '' && template.includes('raise_exception') && template.includes(message);
}

/** What the preview shown differs in from the sample as llama.cpp would pass it, and why. */
function noteOf(attempt: Attempt, firstError: string, source: string): string | null {
  const notes: string[] = [];
  if (attempt.withoutSystem) {
    notes.push(
      raisedByTemplate(source, firstError)
        ? `Shown without the system message, which the template refuses (“${firstError}”).`
        : `Shown without the system message: with it, the template could not be rendered here (“${firstError}”).`,
    );
  }
  if (attempt.nones) {
    notes.push('Rendered with tools and documents set to none, as transformers passes them when there are none.');
  }
  if (attempt.emptyToolCalls) {
    notes.push(
      'Each message carries an empty tool_calls list: this interpreter cannot loop over a missing one, which ' +
        'Jinja2 and minja take as empty.',
    );
  }
  return notes.length > 0 ? notes.join(' ') : null;
}

function contextOf(attempt: Attempt, input: ChatTemplateInput): Record<string, unknown> {
  const turns = attempt.withoutSystem ? WITHOUT_SYSTEM : SAMPLE_CONVERSATION;
  return {
    messages: attempt.emptyToolCalls ? turns.map((message) => ({ ...message, tool_calls: [] })) : turns,
    add_generation_prompt: true,
    bos_token: input.bos,
    eos_token: input.eos,
    ...(attempt.nones ? TRANSFORMERS_NONES : {}),
  };
}

export async function renderChatPreview(input: ChatTemplateInput): Promise<ChatPreview> {
  const { source } = input;
  let template: { render(context: Record<string, unknown>): string };
  try {
    const { Template } = await import('@huggingface/jinja');
    template = new Template(source);
  } catch (error) {
    return { ok: false, reason: interpreterFailure(messageOf(error)) };
  }
  let firstError = '';
  for (const attempt of ATTEMPTS) {
    try {
      const text = template.render(contextOf(attempt, input));
      return { ok: true, text, note: noteOf(attempt, firstError, source) };
    } catch (error) {
      firstError ||= messageOf(error);
    }
  }
  return {
    ok: false,
    reason: raisedByTemplate(source, firstError)
      ? `The template refuses the sample conversation, with and without its system message: “${firstError}”.`
      : interpreterFailure(firstError),
  };
}

function interpreterFailure(message: string): string {
  return (
    `The template could not be rendered here: ${message}. llama.cpp's own Jinja engine (minja) or Python's ` +
    'Jinja2 may still accept it.'
  );
}
