import { describe, expect, it } from 'vitest';
import { sidecarUrlBeside, urlsBeside } from './config-beside';

const configUrlBeside = (fileUrl: string) => sidecarUrlBeside(fileUrl)?.url ?? null;

describe('sidecarUrlBeside', () => {
  it('points at config.json in the same folder and revision of a Hub file or index', () => {
    expect(configUrlBeside('https://huggingface.co/org/name/resolve/main/model.safetensors')).toBe(
      'https://huggingface.co/org/name/resolve/main/config.json',
    );
    expect(
      configUrlBeside(
        'https://huggingface.co/org/name/resolve/v1.0/transformer/model.safetensors.index.json?download=1',
      ),
    ).toBe('https://huggingface.co/org/name/resolve/v1.0/transformer/config.json');
    // The fake Hub of the e2e servers has the same shape under /hub/.
    expect(configUrlBeside('http://127.0.0.1:8080/hub/lens-e2e/tiny/resolve/main/model.safetensors')).toBe(
      'http://127.0.0.1:8080/hub/lens-e2e/tiny/resolve/main/config.json',
    );
  });

  it('points at config.json in the same folder on any other server, query and fragment dropped', () => {
    expect(configUrlBeside('https://example.com/models/llama/model.safetensors')).toBe(
      'https://example.com/models/llama/config.json',
    );
    expect(configUrlBeside('http://127.0.0.1:8080/range/dir/pytorch_model.bin?sig=abc#x')).toBe(
      'http://127.0.0.1:8080/range/dir/config.json',
    );
    expect(configUrlBeside('https://cdn.example.org/m/model.safetensors.index.json')).toBe(
      'https://cdn.example.org/m/config.json',
    );
    expect(configUrlBeside('https://example.com/model%20v2.SAFETENSORS')).toBe('https://example.com/config.json');
    expect(sidecarUrlBeside('https://example.com/lora/adapter_model.safetensors')?.url).toBe(
      'https://example.com/lora/adapter_config.json',
    );
  });

  it("points the reference code's consolidated weights at params.json, and never reads beside a params.json", () => {
    expect(sidecarUrlBeside('https://huggingface.co/mistralai/m/resolve/main/consolidated.safetensors')).toEqual({
      sidecar: { key: 'config', file: 'params.json' },
      url: 'https://huggingface.co/mistralai/m/resolve/main/params.json',
      fallback: {
        sidecar: { key: 'config', file: 'config.json' },
        url: 'https://huggingface.co/mistralai/m/resolve/main/config.json',
      },
    });
    expect(configUrlBeside('https://example.com/llama/original/consolidated.00.pth')).toBe(
      'https://example.com/llama/original/params.json',
    );
    expect(configUrlBeside('https://example.com/m/model-consolidated.safetensors')).toBe(
      'https://example.com/m/config.json',
    );
    expect(configUrlBeside('https://huggingface.co/mistralai/m/resolve/main/params.json')).toBeNull();
  });

  it('does not guess where the folder may not be the model folder, or on odd URLs', () => {
    // Off the Hub, a last segment that names no model file says nothing about its folder.
    expect(configUrlBeside('https://example.com/download?id=7')).toBeNull();
    expect(configUrlBeside('https://example.com/models/')).toBeNull();
    expect(configUrlBeside('https://example.com/weights.gguf')).toBeNull();
    expect(configUrlBeside('https://example.com/bad%E0%A4%A.safetensors')).toBeNull();
    expect(configUrlBeside('ftp://example.com/model.safetensors')).toBeNull();
    expect(configUrlBeside('https://huggingface.co/org/name/resolve/main/config.json')).toBeNull();
    expect(configUrlBeside('https://huggingface.co/org/name/resolve/main/adapter_config.json')).toBeNull();
    expect(configUrlBeside('not a url')).toBeNull();
  });

  it('points a PEFT adapter at its adapter_config.json, and anything else at config.json', () => {
    expect(sidecarUrlBeside('https://huggingface.co/org/lora/resolve/main/adapter_model.safetensors')).toEqual({
      sidecar: { key: 'adapterConfig', file: 'adapter_config.json' },
      url: 'https://huggingface.co/org/lora/resolve/main/adapter_config.json',
    });
    expect(sidecarUrlBeside('https://huggingface.co/org/lora/resolve/main/sub/adapter_model.bin')?.url).toBe(
      'https://huggingface.co/org/lora/resolve/main/sub/adapter_config.json',
    );
    // A kohya LoRA states its settings in its own metadata; a file merely named like an adapter is not one.
    expect(sidecarUrlBeside('https://huggingface.co/org/lora/resolve/main/my_lora.safetensors')?.sidecar.file).toBe(
      'config.json',
    );
    expect(
      sidecarUrlBeside('https://huggingface.co/org/lora/resolve/main/adapter_model.safetensors.index.json')?.sidecar
        .file,
    ).toBe('config.json');
  });
});

describe('urlsBeside', () => {
  it("gives each name's URL in the model file's folder, query dropped, with the same rules as sidecarUrlBeside", () => {
    expect(
      urlsBeside('https://huggingface.co/org/name/resolve/abc123/sub/model.safetensors?download=1', [
        'tokenizer_config.json',
        'chat_template.jinja',
      ]),
    ).toEqual([
      {
        name: 'tokenizer_config.json',
        url: 'https://huggingface.co/org/name/resolve/abc123/sub/tokenizer_config.json',
      },
      { name: 'chat_template.jinja', url: 'https://huggingface.co/org/name/resolve/abc123/sub/chat_template.jinja' },
    ]);
    // Off the Hub, only beside a URL that names a model file; never beside a config.
    expect(urlsBeside('https://example.com/download?id=7', ['tokenizer_config.json'])).toBeNull();
    expect(urlsBeside('https://example.com/m/config.json', ['tokenizer_config.json'])).toBeNull();
  });
});
