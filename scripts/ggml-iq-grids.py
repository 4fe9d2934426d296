#!/usr/bin/env python3
"""Writes src/core/values/ggml-iq-grids.json: the codebooks of ggml's IQ1/IQ2/IQ3 quant types, as data.

Those types store, per group of 8 (IQ1, IQ2) or 4 (IQ3) weights, an index into a fixed table of points (ggml's
iq2xxs_grid, iq2xs_grid, iq2s_grid, iq3xxs_grid, iq3s_grid and iq1s_grid, in ggml-common.h). The points are not a
formula: they were chosen once, and every llama.cpp build carries the same tables. This script reads them from
gguf-py (`gguf.quants`, llama.cpp's own Python package, MIT licensed like ggml), which expands each table into
its points, and stores each point as its position in the type's short list of levels, packed a few to a byte, in
base64. Run: python3 scripts/ggml-iq-grids.py
"""
import base64
import importlib.metadata
import json
import math
import os

import numpy as np
from gguf import quants

OUT = os.path.join(os.path.dirname(__file__), '..', 'src', 'core', 'values', 'ggml-iq-grids.json')

# The types whose table is their own; IQ1_M uses IQ1_S's and IQ2_XXS's sign table is computed, not stored.
TYPES = ('IQ2_XXS', 'IQ2_XS', 'IQ2_S', 'IQ3_XXS', 'IQ3_S', 'IQ1_S')


def table(name: str) -> dict:
    cls = getattr(quants, name)
    cls.init_grid()
    points = np.asarray(cls.grid, dtype=np.float32).reshape(cls.grid_shape)
    levels = [float(v) for v in cls.grid_map]
    positions = np.searchsorted(np.array(levels, dtype=np.float32), points.reshape(-1))
    assert np.array_equal(np.array(levels, dtype=np.float32)[positions], points.reshape(-1)), name
    # Two bits hold one of three levels, four bits one of eight: whole fields per byte, low bits first.
    bits = 2 if len(levels) <= 4 else 4
    per_byte = 8 // bits
    packed = bytearray(math.ceil(positions.size / per_byte))
    for i, position in enumerate(positions):
        packed[i // per_byte] |= int(position) << (bits * (i % per_byte))
    return {
        'points': int(cls.grid_shape[0]),
        'width': int(cls.grid_shape[1]),
        'levels': [int(v) for v in levels],
        'bitsPerPoint': bits,
        'packed': base64.b64encode(bytes(packed)).decode('ascii'),
    }


def main():
    grids = {name: table(name) for name in TYPES}
    document = {
        'generator': 'scripts/ggml-iq-grids.py',
        'source': f'gguf-py {importlib.metadata.version("gguf")} (gguf.quants), the tables of ggml-common.h',
        'grids': grids,
    }
    lines = ['{']
    lines.append(f'  "generator": {json.dumps(document["generator"])},')
    lines.append(f'  "source": {json.dumps(document["source"])},')
    lines.append('  "grids": {')
    for i, (name, grid) in enumerate(grids.items()):
        fields = [
            f'"points": {grid["points"]}',
            f'"width": {grid["width"]}',
            f'"levels": {json.dumps(grid["levels"]).replace(",", ", ").replace(",  ", ", ")}',
            f'"bitsPerPoint": {grid["bitsPerPoint"]}',
            f'"packed": {json.dumps(grid["packed"])}',
        ]
        lines.append(f'    "{name}": {{')
        lines.extend(f'      {field}{"," if j < len(fields) - 1 else ""}' for j, field in enumerate(fields))
        lines.append('    }' + (',' if i < len(grids) - 1 else ''))
    lines.append('  }')
    lines.append('}')
    with open(OUT, 'w') as f:
        f.write('\n'.join(lines) + '\n')


if __name__ == '__main__':
    main()
