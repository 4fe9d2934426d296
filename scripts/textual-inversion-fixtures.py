"""Textual inversion embeddings in the layouts the tools save them (fixtures/textual-inversion/), written with the
calls those tools make, and what torch and safetensors read back (expected.json):

  easynegative.pt              AUTOMATIC1111's textual_inversion.py: torch.save of string_to_param, string_to_token,
                               name, step, sd_checkpoint and sd_checkpoint_name (8 vectors of 768, SD 1.x)
  merged-embedding.pt          the same from A1111's embedding merger: sd_checkpoint and its name None
  first-ti-code.pt             the first textual-inversion code's layout: string_to_param a ParameterDict, the token a
                               0-d view of the tokenized prompt's ids (4 vectors of 768)
  t5xxl-embedding.safetensors  a T5-XXL embedding for Flux / SD 3: t5xxl [6, 4096]
  EasyNegative.safetensors     its safetensors form: emb_params alone
  sd2-embedding.safetensors    emb_params of 1,024 (SD 2.x's OpenCLIP ViT-H)
  sdxl-embedding.safetensors   SDXL: clip_l [4, 768] and clip_g [4, 1280]
  learned_embeds.safetensors   diffusers' textual_inversion.py: {placeholder: [768]}

Needs a Python with torch and safetensors: ~/.pyenv/versions/3.11.7/bin/python scripts/textual-inversion-fixtures.py
"""
import json
import os

import torch
from safetensors.torch import load_file, save_file

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures', 'textual-inversion')


def main() -> None:
    torch.manual_seed(0)
    os.makedirs(OUT, exist_ok=True)
    vectors = (torch.randn(8, 768) * 0.01).half()
    torch.save({
        'string_to_token': {'*': 265},
        'string_to_param': {'*': vectors},
        'name': 'easynegative',
        'step': 10000,
        'sd_checkpoint': 'cc6cb27103',
        'sd_checkpoint_name': 'v1-5-pruned-emaonly',
    }, os.path.join(OUT, 'easynegative.pt'))
    torch.save({
        'string_to_token': {'*': 265},
        'string_to_param': {'*': vectors[:4]},
        'name': '_EmbeddingMerge_temp',
        'step': 0,
        'sd_checkpoint': None,
        'sd_checkpoint_name': None,
    }, os.path.join(OUT, 'merged-embedding.pt'))
    token_ids = torch.full((77,), 49407, dtype=torch.int64)
    token_ids[1] = 265
    torch.save({
        'string_to_token': {'*': token_ids[1]},
        'string_to_param': torch.nn.ParameterDict({'*': torch.nn.Parameter((torch.randn(4, 768) * 0.01))}),
    }, os.path.join(OUT, 'first-ti-code.pt'))
    save_file({'t5xxl': (torch.randn(6, 4096) * 0.01).half()}, os.path.join(OUT, 't5xxl-embedding.safetensors'))
    save_file({'emb_params': vectors}, os.path.join(OUT, 'EasyNegative.safetensors'))
    save_file({'emb_params': (torch.randn(2, 1024) * 0.01).half()}, os.path.join(OUT, 'sd2-embedding.safetensors'))
    save_file({'clip_l': (torch.randn(4, 768) * 0.01).half(), 'clip_g': (torch.randn(4, 1280) * 0.01).half()},
              os.path.join(OUT, 'sdxl-embedding.safetensors'))
    save_file({'<cat-toy>': torch.randn(768) * 0.01}, os.path.join(OUT, 'learned_embeds.safetensors'))

    expected = {}
    for name in sorted(os.listdir(OUT)):
        path = os.path.join(OUT, name)
        if name.endswith('.safetensors'):
            tensors = load_file(path)
            expected[name] = {'tensors': {key: list(value.shape) for key, value in tensors.items()}}
        elif name.endswith('.pt'):
            data = torch.load(path, weights_only=False)
            params = data['string_to_param']
            # A ParameterDict is a module: named as its state_dict names its entries, like the plain dict's.
            expected[name] = {
                'tensors': {f'string_to_param.{key}': list(value.shape) for key, value in params.items()},
                'name': data.get('name'), 'step': data.get('step'), 'sdCheckpointName': data.get('sd_checkpoint_name'),
            }
    with open(os.path.join(OUT, 'expected.json'), 'w') as out:
        json.dump(expected, out, indent=1, sort_keys=True)
        out.write('\n')


if __name__ == '__main__':
    main()
