import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { BreakableName } from './BreakableName';

const html = (text: string) => renderToStaticMarkup(<BreakableName text={text} />);

describe('BreakableName', () => {
  it('offers a line break after each run of separators, never inside a word', () => {
    expect(html('smart_falcon_4_lokr.safetensors')).toBe('smart_<wbr/>falcon_<wbr/>4_<wbr/>lokr.<wbr/>safetensors');
    expect(html('posix.system')).toBe('posix.<wbr/>system');
    expect(html('org/name@abc1234 (main)/model--00001.gguf')).toBe(
      'org/<wbr/>name@abc1234 (main)/<wbr/>model--<wbr/>00001.<wbr/>gguf',
    );
  });

  it('leaves the text itself as it was', () => {
    for (const text of ['model.safetensors', '', '...', 'no-separators-at-end-', 'plain']) {
      expect(html(text).replaceAll('<wbr/>', '')).toBe(text);
    }
  });
});
