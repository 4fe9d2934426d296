/**
 * Chat templates come from the files being inspected, and a template is a program: `{% for i in range(10**10) %}`
 * runs for hours in any interpreter. Each render therefore runs in a worker of its own (template.worker.ts) that is
 * terminated past TEMPLATE_RENDER_TIMEOUT_MS, and the preview then says the template was stopped. The page's template
 * cards and the parser worker's sample render (core/analysis/tokenizer/tokenizer-sample.ts) both go through here.
 */
import { renderChatPreview, type ChatPreview, type ChatTemplateInput } from '../core/analysis/tokenizer/chat-preview';
import { TEMPLATE_RENDER_TIMEOUT_MS } from '../core/limits';

export function renderChatPreviewIsolated(input: ChatTemplateInput): Promise<ChatPreview> {
  // Node (the unit tests) has no Worker; browsers, where files from strangers are opened, always do.
  if (typeof Worker === 'undefined') {
    return renderChatPreview(input);
  }
  return new Promise((resolve) => {
    let worker: Worker;
    try {
      worker = new Worker(new URL('./template.worker.ts', import.meta.url), { type: 'module', name: 'chat-template' });
    } catch (error) {
      resolve({ ok: false, reason: `The template renderer could not be started: ${messageOf(error)}.` });
      return;
    }
    const settle = (preview: ChatPreview) => {
      clearTimeout(timer);
      worker.terminate();
      resolve(preview);
    };
    const timer = setTimeout(
      () =>
        settle({
          ok: false,
          reason:
            `The template did not finish rendering within ${TEMPLATE_RENDER_TIMEOUT_MS / 1000} s and was stopped: ` +
            'it loops for too long, or for ever, on the sample conversation.',
        }),
      TEMPLATE_RENDER_TIMEOUT_MS,
    );
    worker.onmessage = (event: MessageEvent<ChatPreview>) => settle(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      settle({
        ok: false,
        reason: `The template could not be rendered here: ${event.message || 'the renderer failed'}.`,
      });
    };
    worker.postMessage(input);
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
