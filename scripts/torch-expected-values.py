"""Writes fixtures/torch/expected-values.json: torch's own values of the zip fixtures, for src/worker/values-checkpoint.test.ts.
Usage: /usr/bin/python3 scripts/torch-expected-values.py (after scripts/torch-fixtures.py)."""
import json, math, torch
out = {}
for name in ['mixed_dtypes.pt', 'tied_views.pt']:
    sd = torch.load('fixtures/torch/' + name, weights_only=False)
    rows = {}
    for k, v in sd.items():
        if v.is_quantized or v.is_complex():
            continue
        d = v.detach().double().flatten()
        rows[k] = {
            'contiguous': v.is_contiguous(),
            'count': d.numel(),
            'min': d.min().item(), 'max': d.max().item(), 'mean': d.mean().item(),
            'first': [x.item() for x in d[:4]],
        }
    out[name] = rows
json.dump(out, open('fixtures/torch/expected-values.json', 'w'), indent=1, sort_keys=True)
