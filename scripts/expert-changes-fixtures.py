"""Two mixture-of-experts layers and a copy in which a few experts were fine-tuned, and numpy's figures of each
expert's change (fixtures/values/):

  experts-base.safetensors   written by the safetensors library: gpt-oss-style stacked experts
                             (`mlp.experts.gate_up_proj` [E, H, 2I], `mlp.experts.down_proj` [E, I, H]) in BF16 for
                             layer 0 and F32 for layer 1, a router and a 3-D tensor that stacks no experts
  experts-tuned.safetensors  the same with layer 0's experts 2 and 5 trained (ESFT-style: the other experts bit for
                             bit the same), layer 1's gate_up_proj trained in every expert by different amounts, its
                             down_proj with ten values of expert 7 moved and one zero of expert 3 turned into -0,
                             the router and the 3-D tensor changed
  experts-base.gguf          written by gguf-py's GGUFWriter: llama.cpp's `blk.0.ffn_gate_exps` (F32) and
  experts-tuned.gguf         `blk.0.ffn_down_exps` (Q8_0, quantized by gguf-py), experts 1 and 6 trained in the copy
  experts-numbered-base.safetensors, experts-numbered-tuned.safetensors
                             Mixtral-style per-expert tensors (`block_sparse_moe.experts.<n>.w1/w2.weight`), two
                             layers of four experts, layer 0's expert 1 and layer 1's experts 0 and 3 trained
  expert-stacks.gguf         written by gguf-py: `blk.0.ffn_up_exps` (F16) whose expert 3 is all zeros, experts 2 and 5
                             the same values, expert 7 fifty times the others' scale and expert 4 holding a NaN, and a
                             plain `blk.0.ffn_down_exps` (F16) with nothing to say
  expert-stacks.safetensors  written by the safetensors library: an upcycled layer whose eight BF16 experts are all
                             one copy (`mlp.experts.gate_up_proj`), and one whose expert 6 is a thousandth of the rest
  experts-scan.safetensors   written by the safetensors library: Mixtral-style per-expert BF16 tensors, four layers
                             of eight experts: layer 0's expert 6 holding an infinity in w2, layer 1's expert 5 with
                             w1 twenty times the others' scale, layer 2's expert 0 all zeros and expert 3's w2 a
                             twentieth of the others', layer 3 upcycled (every expert one copy of a dense FFN)
  experts-scaled-base.safetensors, experts-scaled-tuned.safetensors
                             written by the safetensors library: a gpt-oss-style BF16 `mlp.experts.down_proj` of eight
                             experts whose copy has expert 1 halved, expert 4 times 1.25, expert 2 times 1.003 (under
                             the change a fit is tried for), expert 6 trained, the rest the same
  expert-changes.json        per tensor, per expert: ||b - a|| / ||a||, the cosine, max |b - a| and the share of
                             values that differ (bit for bit: -0 against +0 differs), over the values decoded
                             (ml_dtypes for BF16, gguf-py's dequantize for Q8_0); null for a tensor with no experts;
                             and per pair the expert map: per layer, per expert, the largest relative L2 of its tensors
                             and whether any of their values differs; for the scan, per stack the experts all
                             zeros, with a NaN or an infinity, holding the same values (numpy's exact equality) and
                             with an RMS over 10x or under a tenth of the stack's median, and every expert's RMS;
                             for experts-scan.safetensors the scan's map of scales: per layer, per expert, of its
                             tensors the RMS over the median RMS of that tensor's live experts in the layer farthest
                             from 1 (by log), and whether one is all zeros, holds NaN or an infinity, or equals
                             another tensor of 4,096 values or more (numpy's exact equality); for the scaled pair,
                             per expert the relative L2 and the one factor of B = s * A when the rule of
                             channel-scales.ts holds (change >= 0.01; least-squares s leaves at most a tenth of the
                             change and of ||b|| / ||a||; s off 1 by more than 0.001), else null

Run with the pyenv Python that has safetensors, numpy, ml_dtypes and gguf: python scripts/expert-changes-fixtures.py
"""
import json
from pathlib import Path

import ml_dtypes
import numpy as np
from gguf import GGMLQuantizationType, GGUFWriter, quants
from safetensors.numpy import save_file

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "values"
EXPERTS = 8
HIDDEN = 16
INTER = 12


def train(gen: np.random.Generator, expert: np.ndarray, relative: float) -> np.ndarray:
    update = gen.standard_normal(expert.shape).astype(np.float32)
    update *= relative * np.linalg.norm(expert) / np.linalg.norm(update)
    return expert + update


def figures(a: np.ndarray, b: np.ndarray) -> list:
    """Per expert along the first dim, in float64 over the decoded float32 values."""
    out = []
    for expert in range(a.shape[0]):
        x = a[expert].astype(np.float64).ravel()
        y = b[expert].astype(np.float64).ravel()
        d = y - x
        norm_a = np.linalg.norm(x)
        norm_b = np.linalg.norm(y)
        differ = np.count_nonzero(a[expert].astype(np.float32).view(np.uint32) != b[expert].astype(np.float32).view(np.uint32))
        out.append(
            {
                "expert": expert,
                "relL2": float(np.linalg.norm(d) / norm_a) if norm_a > 0 else (0.0 if not d.any() else None),
                "cosine": float(x @ y / (norm_a * norm_b)) if norm_a > 0 and norm_b > 0 else None,
                "maxAbs": float(np.abs(d).max()),
                "changedShare": differ / x.size,
            }
        )
    return out


def safetensors_pair(gen: np.random.Generator) -> dict:
    base = {
        "model.layers.0.mlp.experts.gate_up_proj": gen.standard_normal((EXPERTS, HIDDEN, 2 * INTER)) * 0.02,
        "model.layers.0.mlp.experts.down_proj": gen.standard_normal((EXPERTS, INTER, HIDDEN)) * 0.02,
        "model.layers.1.mlp.experts.gate_up_proj": gen.standard_normal((EXPERTS, HIDDEN, 2 * INTER)) * 0.02,
        "model.layers.1.mlp.experts.down_proj": gen.standard_normal((EXPERTS, INTER, HIDDEN)) * 0.02,
        "model.layers.0.mlp.router.weight": gen.standard_normal((EXPERTS, HIDDEN)) * 0.02,
        "model.layers.0.conv.weight": gen.standard_normal((4, 3, 5)) * 0.1,
    }
    base = {name: values.astype(np.float32) for name, values in base.items()}
    base["model.layers.1.mlp.experts.down_proj"][3, 0, 0] = 0.0
    tuned = {name: values.copy() for name, values in base.items()}
    gate_up0 = tuned["model.layers.0.mlp.experts.gate_up_proj"]
    gate_up0[2] = train(gen, gate_up0[2], 0.05)
    gate_up0[5] = train(gen, gate_up0[5], 0.01)
    down0 = tuned["model.layers.0.mlp.experts.down_proj"]
    down0[5] = train(gen, down0[5], 0.03)
    gate_up1 = tuned["model.layers.1.mlp.experts.gate_up_proj"]
    for expert in range(EXPERTS):
        gate_up1[expert] = train(gen, gate_up1[expert], 0.002 * (expert + 1))
    down1 = tuned["model.layers.1.mlp.experts.down_proj"]
    flat = down1[7].reshape(-1)
    flat[gen.choice(flat.size, 10, replace=False)] += 0.01
    down1[3, 0, 0] = -0.0
    tuned["model.layers.0.mlp.router.weight"] = train(gen, tuned["model.layers.0.mlp.router.weight"], 0.01)
    tuned["model.layers.0.conv.weight"] = train(gen, tuned["model.layers.0.conv.weight"], 0.01)

    def stored(values: dict) -> dict:
        # Layer 0 as BF16, as a checkpoint saved in bfloat16 holds it.
        return {
            name: v.astype(ml_dtypes.bfloat16) if name.startswith("model.layers.0.mlp.experts") else v
            for name, v in values.items()
        }

    base_stored, tuned_stored = stored(base), stored(tuned)
    save_file(base_stored, str(OUT / "experts-base.safetensors"))
    save_file(tuned_stored, str(OUT / "experts-tuned.safetensors"))
    tensors = {}
    for name in base:
        a = base_stored[name].astype(np.float32)
        b = tuned_stored[name].astype(np.float32)
        stacked = ".experts." in name
        tensors[name] = {"experts": figures(a, b)} if stacked else None
    return {"a": "experts-base.safetensors", "b": "experts-tuned.safetensors", "tensors": tensors}


def write_gguf(path: Path, gate: np.ndarray, down_raw: np.ndarray) -> None:
    writer = GGUFWriter(str(path), "qwen2moe")
    writer.add_name("stacked experts")
    writer.add_tensor("blk.0.ffn_gate_exps.weight", gate)
    writer.add_tensor("blk.0.ffn_down_exps.weight", down_raw, raw_dtype=GGMLQuantizationType.Q8_0)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def gguf_pair(gen: np.random.Generator) -> dict:
    gate = (gen.standard_normal((EXPERTS, INTER, HIDDEN)) * 0.02).astype(np.float32)
    down = (gen.standard_normal((EXPERTS, HIDDEN, 2 * HIDDEN)) * 0.02).astype(np.float32)
    gate_tuned = gate.copy()
    down_tuned = down.copy()
    for expert, relative in ((1, 0.04), (6, 0.02)):
        gate_tuned[expert] = train(gen, gate[expert], relative)
        down_tuned[expert] = train(gen, down[expert], relative)
    raws = [quants.quantize(values, GGMLQuantizationType.Q8_0) for values in (down, down_tuned)]
    write_gguf(OUT / "experts-base.gguf", gate, raws[0])
    write_gguf(OUT / "experts-tuned.gguf", gate_tuned, raws[1])
    decoded = [quants.dequantize(raw, GGMLQuantizationType.Q8_0).reshape(down.shape) for raw in raws]
    return {
        "a": "experts-base.gguf",
        "b": "experts-tuned.gguf",
        "tensors": {
            "blk.0.ffn_gate_exps.weight": {"experts": figures(gate, gate_tuned)},
            "blk.0.ffn_down_exps.weight": {"experts": figures(decoded[0], decoded[1])},
        },
    }


def expert_map(cells: dict) -> dict:
    """{(layer, expert): [(relL2, changed), ...]} as rows of layers, columns of experts."""
    layers = sorted({layer for layer, _ in cells})
    experts = max(expert for _, expert in cells) + 1
    rel, changed = [], []
    for layer in layers:
        for expert in range(experts):
            seen = cells.get((layer, expert))
            rel.append(None if seen is None else max(r for r, _ in seen))
            changed.append(None if seen is None else any(c for _, c in seen))
    return {"layers": layers, "experts": experts, "relL2": rel, "changed": changed}


def stacked_map(pair: dict) -> dict:
    cells: dict = {}
    for name, want in pair["tensors"].items():
        if want is None:
            continue
        layer = int(name.split(".")[2] if name.startswith("model.") else name.split(".")[1])
        for entry in want["experts"]:
            cells.setdefault((layer, entry["expert"]), []).append((entry["relL2"], entry["changedShare"] > 0))
    return expert_map(cells)


def numbered_pair(gen: np.random.Generator) -> dict:
    base, tuned, cells = {}, {}, {}
    for layer in range(2):
        for expert in range(4):
            for proj, shape in (("w1", (INTER, HIDDEN)), ("w2", (HIDDEN, INTER))):
                name = f"model.layers.{layer}.block_sparse_moe.experts.{expert}.{proj}.weight"
                a = (gen.standard_normal(shape) * 0.02).astype(np.float32)
                trained = (layer, expert) in ((0, 1), (1, 0), (1, 3))
                b = train(gen, a, 0.01 * (expert + 1) * (1 if proj == "w1" else 2)) if trained else a.copy()
                base[name], tuned[name] = a, b
                d = b.astype(np.float64) - a.astype(np.float64)
                rel = float(np.linalg.norm(d) / np.linalg.norm(a.astype(np.float64)))
                cells.setdefault((layer, expert), []).append((rel, bool((a != b).any())))
    save_file(base, str(OUT / "experts-numbered-base.safetensors"))
    save_file(tuned, str(OUT / "experts-numbered-tuned.safetensors"))
    return {"a": "experts-numbered-base.safetensors", "b": "experts-numbered-tuned.safetensors", "map": expert_map(cells)}


def stack_answer(values: np.ndarray) -> dict:
    """What the scan should say of one stack, from the decoded values."""
    flat = values.reshape(values.shape[0], -1).astype(np.float64)
    finite = np.where(np.isfinite(flat), flat, 0.0)
    zero = [int(e) for e in range(len(flat)) if not flat[e].any()]
    live = [e for e in range(len(flat)) if e not in zero]
    rms = {e: float(np.sqrt((finite[e] ** 2).sum() / np.isfinite(flat[e]).sum())) for e in live}
    median = float(np.median([rms[e] for e in live]))
    groups: list = []
    for e in live:
        for group in groups:
            if np.array_equal(flat[group[0]], flat[e], equal_nan=True):
                group.append(e)
                break
        else:
            groups.append([e])
    return {
        "experts": len(flat),
        "zeroExperts": zero,
        "nonFiniteExperts": [int(e) for e in range(len(flat)) if not np.isfinite(flat[e]).all()],
        "copies": [g for g in groups if len(g) > 1],
        "rmsOutliers": sorted(
            (e for e in live if rms[e] / median > 10 or rms[e] / median < 0.1),
            key=lambda e: -abs(np.log(rms[e] / median)),
        ),
        "medianRms": median,
        "rms": [float(np.sqrt((finite[e] ** 2).sum() / np.isfinite(flat[e]).sum())) for e in range(len(flat))],
    }


def scan_stacks(gen: np.random.Generator) -> dict:
    up = (gen.standard_normal((EXPERTS, 64, 64)) * 0.02).astype(np.float16)
    up[3] = 0
    up[5] = up[2]
    up[7] = (up[7].astype(np.float32) * 50).astype(np.float16)
    up[4, 10, 20] = np.nan
    down = (gen.standard_normal((EXPERTS, 64, 64)) * 0.02).astype(np.float16)
    writer = GGUFWriter(str(OUT / "expert-stacks.gguf"), "qwen2moe")
    writer.add_name("expert stacks")
    writer.add_tensor("blk.0.ffn_up_exps.weight", up)
    writer.add_tensor("blk.0.ffn_down_exps.weight", down)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    dense = gen.standard_normal((64, 64)) * 0.02
    upcycled = np.stack([dense] * EXPERTS).astype(ml_dtypes.bfloat16)
    scaled = gen.standard_normal((EXPERTS, 64, 64)) * 0.02
    scaled[6] *= 0.001
    scaled = scaled.astype(ml_dtypes.bfloat16)
    save_file(
        {"model.layers.0.mlp.experts.gate_up_proj": upcycled, "model.layers.1.mlp.experts.down_proj": scaled},
        str(OUT / "expert-stacks.safetensors"),
    )
    return {
        "expert-stacks.gguf": {"blk.0.ffn_up_exps.weight": stack_answer(up)},
        "expert-stacks.safetensors": {
            "model.layers.0.mlp.experts.gate_up_proj": stack_answer(upcycled.astype(np.float32)),
            "model.layers.1.mlp.experts.down_proj": stack_answer(scaled.astype(np.float32)),
        },
    }


def scan_map(tensors: dict) -> dict:
    """The scan's map of scales over per-expert tensors {name: float values}, as expert-scale-map.ts defines it."""
    flat = {name: values.astype(np.float64).ravel() for name, values in tensors.items()}
    live = {name: values[np.isfinite(values)] for name, values in flat.items()}
    big = [name for name in flat if flat[name].size >= 4096 and live[name].std() > 0]
    copies = {a for a in big for b in big if a != b and np.array_equal(flat[a], flat[b])}
    groups: dict = {}
    for name, values in flat.items():
        parts = name.split(".")
        layer, expert = int(parts[2]), int(parts[5])
        finite = values[np.isfinite(values)]
        rms = float(np.sqrt((finite**2).mean())) if finite.size else None
        marks = (1 if not values.any() else 0) | (2 if not np.isfinite(values).all() else 0)
        marks |= 4 if name in copies else 0
        groups.setdefault((layer, parts[6]), []).append((expert, rms, marks))
    cells: dict = {}
    for (layer, proj), members in groups.items():
        live = [rms for _, rms, _ in members if rms]
        mid = float(np.median(live)) if len(live) >= 3 else None
        for expert, rms, marks in members:
            ratio = rms / mid if rms and mid else None
            held = cells.get((layer, expert), (None, None, 0))
            far = lambda r: -1 if r is None else abs(np.log(r))
            best = (ratio, proj) if far(ratio) > far(held[0]) else held[:2]
            cells[(layer, expert)] = (best[0], best[1], held[2] | marks)
    layers = sorted({layer for layer, _ in cells})
    experts = max(expert for _, expert in cells) + 1
    order = [(layer, expert) for layer in layers for expert in range(experts)]
    return {
        "layers": layers,
        "experts": experts,
        "ratio": [cells[key][0] for key in order],
        "role": [cells[key][1] for key in order],
        "marks": [cells[key][2] for key in order],
    }


def scan_experts(gen: np.random.Generator) -> dict:
    dense = {proj: gen.standard_normal(shape) * 0.02 for proj, shape in (("w1", (64, 64)), ("w2", (64, 64)))}
    tensors: dict = {}
    for layer in range(4):
        for expert in range(EXPERTS):
            for proj in ("w1", "w2"):
                values = dense[proj].copy() if layer == 3 else gen.standard_normal((64, 64)) * 0.02
                if (layer, expert, proj) == (0, 6, "w2"):
                    values[5, 9] = np.inf
                if (layer, expert, proj) == (1, 5, "w1"):
                    values *= 20
                if (layer, expert) == (2, 0):
                    values[:] = 0
                if (layer, expert, proj) == (2, 3, "w2"):
                    values *= 0.05
                name = f"model.layers.{layer}.block_sparse_moe.experts.{expert}.{proj}.weight"
                tensors[name] = values.astype(ml_dtypes.bfloat16)
        tensors[f"model.layers.{layer}.block_sparse_moe.gate.weight"] = (
            gen.standard_normal((EXPERTS, 64)) * 0.02
        ).astype(ml_dtypes.bfloat16)
    save_file(tensors, str(OUT / "experts-scan.safetensors"))
    experts = {name: values.astype(np.float32) for name, values in tensors.items() if ".experts." in name}
    return {"file": "experts-scan.safetensors", "map": scan_map(experts)}


def scaled_pair(gen: np.random.Generator) -> dict:
    base = (gen.standard_normal((EXPERTS, 48, 64)) * 0.02).astype(ml_dtypes.bfloat16)
    tuned = base.astype(np.float32)
    tuned[1] *= 0.5
    tuned[4] *= 1.25
    tuned[2] *= 1.003
    tuned[6] += gen.standard_normal((48, 64)) * 0.001
    tuned = tuned.astype(ml_dtypes.bfloat16)
    name = "model.layers.0.mlp.experts.down_proj"
    save_file({name: base}, str(OUT / "experts-scaled-base.safetensors"))
    save_file({name: tuned}, str(OUT / "experts-scaled-tuned.safetensors"))
    experts = []
    for expert in range(EXPERTS):
        a = base[expert].astype(np.float64).ravel()
        b = tuned[expert].astype(np.float64).ravel()
        aa, ab, bb = float(a @ a), float(a @ b), float(b @ b)
        rel = float(np.linalg.norm(b - a) / np.sqrt(aa))
        factor = ab / aa
        after = np.sqrt(max(0.0, bb - ab * factor) / aa)
        scaled = rel >= 0.01 and after <= 0.1 * min(rel, np.sqrt(bb / aa)) and abs(factor - 1) > 0.001
        experts.append({"expert": expert, "relL2": rel, "scale": factor if scaled else None})
    return {
        "a": "experts-scaled-base.safetensors",
        "b": "experts-scaled-tuned.safetensors",
        "tensor": name,
        "experts": experts,
    }


def main() -> None:
    gen = np.random.default_rng(20261206)
    result = {
        "generator": "scripts/expert-changes-fixtures.py",
        "numpy": np.__version__,
        "safetensors": safetensors_pair(gen),
        "gguf": gguf_pair(gen),
    }
    for pair in ("safetensors", "gguf"):
        result[pair]["map"] = stacked_map(result[pair])
    result["numbered"] = numbered_pair(gen)
    result["scan"] = scan_stacks(gen)
    result["scanMap"] = scan_experts(gen)
    result["scaled"] = scaled_pair(gen)
    (OUT / "expert-changes.json").write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
