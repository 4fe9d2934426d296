"""What save_pretrained wrote, read back for a differential fixture: the safetensors header and the config beside it.

Shared by scripts/transformers-arch-fixtures.py and scripts/peft-adapter-fixtures.py.
"""
import json
import tempfile
from pathlib import Path


def saved_header_and_config(model, weights_name: str, config_name: str) -> tuple[dict, dict]:
    """Saves `model` with save_pretrained into a temporary folder; returns its header (JSON) and its config."""
    with tempfile.TemporaryDirectory() as folder:
        model.save_pretrained(folder)
        raw = (Path(folder) / weights_name).read_bytes()
        length = int.from_bytes(raw[:8], "little")
        header = json.loads(raw[8 : 8 + length])
        config = json.loads((Path(folder) / config_name).read_text())
    return header, config
