"""Writes fixtures/torch/expected-values.json: torch's own values of the checkpoint fixtures, for
src/worker/values-checkpoint.test.ts, after writing the two view fixtures here: strided_views.pt (a torch.save zip) and
legacy_views.pt (the same tensors in the legacy, torch < 1.6 stream) hold views that are not row-major — a transpose,
a column slice, a stepped slice, an expand (stride 0), a permute — beside the base tensor they share storage with.
Usage: /usr/bin/python3 scripts/torch-expected-values.py (after scripts/torch-fixtures.py)."""
import collections, json, torch

torch.manual_seed(23)
base = torch.arange(48, dtype=torch.float32).reshape(6, 8) * 0.5 - 3
views = collections.OrderedDict([
    ('base', base),
    ('transposed', base.t()),
    ('columns', base[:, 2:5]),
    ('stepped', base[1::2, ::3]),
    ('expanded', torch.tensor([1.0, -2.0, 3.5]).expand(4, 3)),
    ('bf16_transposed', base.bfloat16().t()),
    ('permuted', torch.randn(2, 3, 4).permute(2, 0, 1)),
    ('half_row', torch.randn(5, 7).half()[3]),
])
torch.save(views, 'fixtures/torch/strided_views.pt')
torch.save(views, 'fixtures/torch/legacy_views.pt', _use_new_zipfile_serialization=False)

out = {}
for name in ['mixed_dtypes.pt', 'tied_views.pt', 'legacy.pt', 'strided_views.pt', 'legacy_views.pt']:
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
