/**
 * Renders one chat template and answers once (template-renderer.ts): a worker of its own, so a template that loops
 * for hours is stopped by terminating this thread, and neither the page nor the parser worker waits on it.
 */
import { renderChatPreview, type ChatTemplateInput } from '../core/analysis/tokenizer/chat-preview';

self.onmessage = (event: MessageEvent<ChatTemplateInput>) => {
  void renderChatPreview(event.data).then((preview) => self.postMessage(preview));
};
