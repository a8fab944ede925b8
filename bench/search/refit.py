#!/usr/bin/env python3
"""Refits the static table to the full model's sentence embeddings (issue #32).

A MANUAL step after distill.py (same venv, same model package):

    HF_HUB_OFFLINE=1 /root/.cache/distill-venv/bin/python bench/search/refit.py CORPUS...

distill.py gives each word piece the vector the transformer makes of that
piece alone; a request's vector is then the mean of its pieces' vectors. That
mean is far from what the transformer makes of the whole sentence. This step
(model2vec's "tokenlearn" idea, written out in numpy) runs the full six-layer
model over a corpus of real sentences, projects each sentence embedding with
the same PCA as distill.py, and solves for piece vectors W whose SIF-weighted
mean over a sentence's pieces comes closest to it, by ridge regression
towards the distilled table W0:

    min_W  sum_i || mean_{p in s_i} W_p  -  t_i ||^2  +  LAMBDA || W - W0 ||^2

(conjugate gradients on the normal equations; pieces the corpus never uses
keep W0). The corpus must be general text about software, never the
evaluation's tool definitions or requests. The vendored table used the
one-line descriptions of the manual pages of a Debian machine (`apropos -l .
| sed -E 's/^[^-]* - //' > man.txt`: "abort the current transaction",
"list directory contents", …) and the TSV package lists of npm and PyPI
(name, version, downloads or month, [rank,] summary), of which the summaries
of the most used packages are read (SUMMARIES of them, English, 6 to 40
words). The numbers used for the vendored table are in
docs/search-ranking.md.
"""

import os
import re
import struct
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import distill  # noqa: E402
from safetensors.numpy import load_file  # noqa: E402

SUMMARIES = int(os.environ.get("REFIT_SUMMARIES", "3000"))
LAMBDA = float(os.environ.get("REFIT_LAMBDA", "0.02"))
CACHE = Path(os.environ.get("REFIT_CACHE", "/tmp/refit-corpus.npz"))
MAX_PIECES = 32
STEPS = int(os.environ.get("REFIT_STEPS", "20"))


def corpus(paths: list[str]) -> list[str]:
    """Every line of each `.txt` file, and the summaries of the most used
    packages of each package list (SUMMARIES in all, shared evenly)."""
    lists = [p for p in paths if not p.endswith(".txt")]
    per = SUMMARIES // max(1, len(lists))
    out = []
    for path in paths:
        if path.endswith(".txt"):
            lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
            out.extend(t.strip() for t in lines if t.isascii() and 3 <= len(t.split()) <= 40)
            continue
        rows = []
        for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines()[1:]:
            cols = line.split("\t")
            text = cols[-1].strip()
            words = text.split()
            if not (6 <= len(words) <= 40) or not text.isascii() or "[tested here" in text:
                continue
            # npm lists monthly downloads in column 3, PyPI a rank in column 4.
            if len(cols) >= 5 and cols[3].strip().isdigit():
                key = -1e12 + int(cols[3])
            elif cols[2].strip().isdigit():
                key = -int(cols[2])
            else:
                continue
            rows.append((key, text))
        rows.sort()
        seen = set()
        for _, text in rows:
            if text.lower() not in seen:
                seen.add(text.lower())
                out.append(text)
            if len(seen) == per:
                break
    return out


def basic_words(text: str) -> list[str]:
    """BERT's basic split, uncased, as embed.rs does it."""
    return re.findall(r"[a-z0-9]+|[^\sa-z0-9]", text.lower())


def word_pieces(word: str, index: dict) -> list[int]:
    out, start = [], 0
    while start < len(word):
        end, found = len(word), None
        while end > start:
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in index:
                found = index[piece]
                break
            end -= 1
        if found is None:
            return []
        out.append(found)
        start = end
    return out


def pieces(text: str, index: dict) -> list[int]:
    out = []
    for word in basic_words(text):
        out.extend(word_pieces(word, index))
    return out[:MAX_PIECES]


def encode(texts, vocab, bert) -> tuple[list[list[int]], np.ndarray]:
    """Full-model ids (with [CLS]/[SEP]) and mean-pooled embeddings, batched by length."""
    index = {p: i for i, p in enumerate(vocab)}
    cls, sep = index["[CLS]"], index["[SEP]"]
    ids = [pieces(t, index) for t in texts]
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    emb = np.zeros((len(ids), 384), dtype=np.float32)
    done = 0
    for start in range(0, len(order), 64):
        chunk = order[start : start + 64]
        by_len = {}
        for i in chunk:
            by_len.setdefault(len(ids[i]), []).append(i)
        for n, rows in by_len.items():
            batch = np.array([[cls, *ids[i], sep] for i in rows])
            emb[rows] = bert.forward(batch)
        done += len(chunk)
        print(f"\r{done}/{len(ids)}", end="", file=sys.stderr)
    print(file=sys.stderr)
    return ids, emb


def main() -> None:
    model = distill.model_dir()
    vocab = (model / "vocab.txt").read_text(encoding="utf-8").split("\n")
    if vocab and vocab[-1] == "":
        vocab.pop()
    if CACHE.exists():
        data = np.load(CACHE, allow_pickle=True)
        ids, emb = list(data["ids"]), data["emb"]
    else:
        texts = corpus(sys.argv[1:])
        weights = {k: v.astype(np.float32) for k, v in load_file(str(model / "model.safetensors")).items()}
        ids, emb = encode(texts, vocab, distill.Bert(weights))
        np.savez(CACHE, ids=np.array(ids, dtype=object), emb=emb, texts=np.array(texts))
    # The distilled table: the same PCA and SIF weights as distill.py (its raw output reused).
    raw = np.load(os.environ.get("DISTILL_RAW", "/tmp/distill-raw.npy"))
    keep = [
        i
        for i, piece in enumerate(vocab)
        if piece.isascii() and not piece.startswith("[unused") and piece not in ("[PAD]", "[MASK]", "[CLS]", "[SEP]")
    ]
    row_of = {v: r for r, v in enumerate(keep)}
    mean = raw.mean(0)
    _, _, vt = np.linalg.svd(raw - mean, full_matrices=False)
    proj = vt[: distill.DIMS].T
    inv_rank = 1.0 / np.arange(2, len(vocab) + 2)
    proba = inv_rank / inv_rank.sum()
    sif = distill.SIF / (distill.SIF + proba[np.array(keep)])
    w0 = ((raw - mean) @ proj) * sif[:, None]
    # Targets: sentence embeddings in the same space, unit length; W0 scaled to match.
    target = (emb - mean) @ proj
    target /= np.linalg.norm(target, axis=1, keepdims=True) + 1e-9
    flat, seg, wt = [], [], []
    for i, sent in enumerate(ids):
        rows = [row_of[p] for p in sent if p in row_of]
        for r in rows:
            flat.append(r)
            seg.append(i)
            wt.append(1.0 / len(rows))
    flat, seg, wt = np.array(flat), np.array(seg), np.array(wt)[:, None]
    n = len(ids)

    # Sparse products by sorted segments (entries are in sentence order).
    starts = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
    by_piece = np.argsort(flat, kind="stable")
    piece_starts = np.flatnonzero(np.r_[True, flat[by_piece][1:] != flat[by_piece][:-1]])
    pieces_used = flat[by_piece][piece_starts]
    sents_used = seg[starts]

    def a(w):
        out = np.zeros((n, w.shape[1]))
        out[sents_used] = np.add.reduceat(w[flat] * wt, starts)
        return out

    def at(x):
        out = np.zeros((len(keep), x.shape[1]))
        out[pieces_used] = np.add.reduceat((x[seg] * wt)[by_piece], piece_starts)
        return out

    scale = np.median(np.linalg.norm(target, axis=1)) / np.median(np.linalg.norm(a(w0), axis=1) + 1e-9)
    w0 = w0 * scale
    used = np.zeros(len(keep), dtype=bool)
    used[flat] = True
    lam = LAMBDA

    def normal(w):
        return at(a(w)) + lam * w

    b = at(target) + lam * w0
    w = w0.copy()
    r = b - normal(w)
    p = r.copy()
    rs = (r * r).sum()
    for step in range(STEPS):
        ap = normal(p)
        alpha = rs / (p * ap).sum()
        w += alpha * p
        r -= alpha * ap
        new = (r * r).sum()
        if step % 10 == 0:
            print(f"cg {step}: residual {np.sqrt(new):.4f}", file=sys.stderr)
        p = r + (new / rs) * p
        rs = new
    fit = a(w)
    cos0 = (a(w0) * target).sum(1) / (np.linalg.norm(a(w0), axis=1) + 1e-9)
    cos1 = (fit * target).sum(1) / (np.linalg.norm(fit, axis=1) + 1e-9)
    print(f"{n} sentences, {used.sum()} pieces refit; cosine to the full model {cos0.mean():.3f} -> {cos1.mean():.3f}", file=sys.stderr)
    rows = w
    qscale = np.abs(rows).max(1) / 127.0
    qscale[qscale == 0] = 1.0
    quant = np.clip(np.round(rows / qscale[:, None]), -127, 127).astype(np.int8)
    out = distill.OUT
    with open(out / "vectors.bin", "wb") as f:
        f.write(b"SBVEC001")
        f.write(struct.pack("<II", len(keep), distill.DIMS))
        f.write(qscale.astype("<f4").tobytes())
        f.write(quant.tobytes())
    print(f"{len(keep)} pieces x {distill.DIMS} dims -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
