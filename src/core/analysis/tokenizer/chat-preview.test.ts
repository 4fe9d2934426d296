import { describe, expect, it } from 'vitest';
import { renderChatPreview, type ChatTemplateInput } from './chat-preview';

function withTemplate(source: string): ChatTemplateInput {
  return { source, bos: '<s>', eos: '' };
}

const TURNS = "{% for m in messages %}[{{ m['role'] }}: {{ m['content'] }}]{% endfor %}";

describe('chat template preview', () => {
  it('renders the whole sample, system message included, when the template takes it', async () => {
    const preview = await renderChatPreview(withTemplate(`{{ bos_token }}${TURNS}`));
    expect(preview).toEqual({
      ok: true,
      note: null,
      text:
        '<s>[system: You are a helpful assistant.][user: What is a chat template?]' +
        '[assistant: It turns a list of messages into the prompt the model was trained on.][user: Thanks!]',
    });
  });

  it('drops the system message for a template that refuses one, and says so', async () => {
    const refusing =
      "{% if messages[0]['role'] == 'system' %}{{ raise_exception('No system turns here') }}{% endif %}" + TURNS;
    const preview = await renderChatPreview(withTemplate(refusing));
    expect(preview.ok).toBe(true);
    if (preview.ok) {
      expect(preview.text.startsWith('[user: What is a chat template?]')).toBe(true);
      expect(preview.note).toBe(
        'Shown without the system message, which the template refuses (“No system turns here”).',
      );
    }
  });

  it('drops it too where roles must alternate from the first message', async () => {
    const alternating =
      "{% for m in messages %}{% if (m['role'] == 'user') != (loop.index0 % 2 == 0) %}" +
      "{{ raise_exception('Roles must alternate') }}{% endif %}({{ m['content'] }}){% endfor %}";
    const preview = await renderChatPreview(withTemplate(alternating));
    expect(preview).toMatchObject({ ok: true, note: expect.stringContaining('Roles must alternate') });
  });

  it('passes tools as none, as transformers does, where the template needs them defined', async () => {
    const toolsAware = '{% if tools is not none and tools|length > 0 %}tools!{% endif %}' + TURNS;
    const preview = await renderChatPreview(withTemplate(toolsAware));
    expect(preview).toMatchObject({ ok: true, note: expect.stringContaining('tools and documents set to none') });
    if (preview.ok) {
      expect(preview.text).not.toContain('tools!');
      expect(preview.text).toContain('[system: You are a helpful assistant.]');
    }
  });

  it('gives each message an empty tool_calls list where the template loops over a missing one', async () => {
    const looping =
      "{% for m in messages %}{% for call in m.tool_calls %}call{% endfor %}[{{ m['role'] }}]{% endfor %}";
    const preview = await renderChatPreview(withTemplate(looping));
    expect(preview).toEqual({
      ok: true,
      text: '[system][user][assistant][user]',
      note:
        'Each message carries an empty tool_calls list: this interpreter cannot loop over a missing one, which ' +
        'Jinja2 and minja take as empty.',
    });
  });

  it('says the template refused the conversation when every attempt is refused', async () => {
    const preview = await renderChatPreview(withTemplate("{{ raise_exception('Never') }}"));
    expect(preview).toEqual({
      ok: false,
      reason: 'The template refuses the sample conversation, with and without its system message: “Never”.',
    });
  });

  it('says the interpreter failed, not the template, for syntax it does not read', async () => {
    const preview = await renderChatPreview(withTemplate('{% for m in messages %}'));
    expect(preview.ok).toBe(false);
    if (!preview.ok) {
      expect(preview.reason).toMatch(
        /^The template could not be rendered here: .*minja.*Jinja2 may still accept it\.$/,
      );
    }
  });
});
