"""Train kotae's reranker: the bundled e5-small read as a cross-encoder, fine-tuned by this project (dev only: torch).

    python scripts/reranker/train.py PACK_DIR OUT_DIR [--minutes 5] [--layers 12] [--device cuda]

PACK_DIR comes from scripts/reranker/prepare.py (JaQuAD train: questions, their paragraphs, kotae's hybrid hits
that do not hold the answer, the sentence that does; token ids and a trimmed copy of the bundled weights), so this
script needs only torch and numpy, and runs where a GPU is lent. The input is `<s> query: Q </s></s> passage: P
</s>`; the embeddings stay the bundled ones (frozen), the top `--layers` encoder layers and a head are trained:
scale × cosine(mean of the question's final states, mean of the passage's) + a linear term on the mean of all
states, so that the score starts as e5's own similarity read inside the pair. Two listwise tasks share the model,
each a softmax over one right answer and its negatives: the answer's paragraph among 15 others (kotae's hard
negatives first, topped up at random), and the sentence that holds the answer among the other sentences of its
paragraph (the ones kotae's extractive step would choose from). Learning rates warm up, then fall linearly with
the time spent, so a run fits `--minutes`.

OUT_DIR gets `rerank-partK.npz` (the trained tensors packed as kotae ships them, int8 per output row, in parts
of at most ~15 MB each; `scripts/reranker/export.py` joins them) and `train.json` (settings, losses, and the
validation set's scores before and after: ~10 % of the articles, never trained on).
"""
from __future__ import annotations

import argparse
import json
import lzma
import math
import os
import random
import sys
import time
from typing import Any

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "src"))

import torch  # noqa: E402

from kotae.embed.e5_convert import dequantize, read_e5_file  # noqa: E402
from kotae.search.e5_rerank import MAX_TOKENS, pack_weights  # noqa: E402

F = torch.nn.functional
NAMES = ("q", "k", "v", "ao", "fi", "fo")
INIT_SCALE = 50.0
PART_BYTES = 15 * 2**20


class Cross(torch.nn.Module):
    """The e5 encoder from the weight file, its top `trainable` layers as parameters, and the pair head."""

    def __init__(self, f: Any, trainable: int, device: torch.device) -> None:
        super().__init__()
        H = f.hidden
        self.H, self.NH, self.eps = H, f.heads, f.eps

        def t(a: np.ndarray) -> torch.Tensor:
            return torch.tensor(np.asarray(a, np.float32), device=device)

        self.register_buffer("word", t(dequantize(f.tensors["emb.word"].reshape(-1, H // 32))))
        self.register_buffer("pos", t(np.asarray(f.tensors["emb.pos"]).reshape(-1, H)))
        self.register_buffer("typ", t(np.asarray(f.tensors["emb.type"])[:H]))
        self.register_buffer("eln_w", t(f.tensors["emb.ln.w"]))
        self.register_buffer("eln_b", t(f.tensors["emb.ln.b"]))
        self.first = f.layers - trainable
        self.frozen: list[dict[str, torch.Tensor]] = []
        self.names: list[str] = []
        self.params = torch.nn.ParameterList()
        self.trained: list[dict[str, torch.Tensor]] = []
        for i in range(f.layers):
            L: dict[str, torch.Tensor] = {}
            raw: dict[str, np.ndarray] = {}
            for n in NAMES:
                raw[f"l{i}.{n}.w"] = dequantize(f.q4(f"l{i}.{n}.w", f.ffn if n == "fi" else H))
                raw[f"l{i}.{n}.b"] = f.tensors[f"l{i}.{n}.b"]
            for ln in ("aln", "oln"):
                for wb in ("w", "b"):
                    raw[f"l{i}.{ln}.{wb}"] = f.tensors[f"l{i}.{ln}.{wb}"]
            for name, a in raw.items():
                key = name.split(".", 1)[1]
                if i >= self.first:
                    p = torch.nn.Parameter(t(a))
                    self.params.append(p)
                    self.names.append(name)
                    L[key] = p
                else:
                    L[key] = t(a)
            (self.trained if i >= self.first else self.frozen).append(L)
        self.head_w = torch.nn.Parameter(torch.zeros(H, device=device))
        self.head_b = torch.nn.Parameter(torch.zeros((), device=device))
        self.head_scale = torch.nn.Parameter(torch.tensor(INIT_SCALE, device=device))

    def layer(self, x: torch.Tensor, keep: torch.Tensor, L: dict[str, torch.Tensor]) -> torch.Tensor:
        B, S, H = x.shape

        def heads(u: torch.Tensor) -> torch.Tensor:
            return u.view(B, S, self.NH, H // self.NH).transpose(1, 2)

        q, k, v = (heads(F.linear(x, L[n + ".w"], L[n + ".b"])) for n in ("q", "k", "v"))
        ctx = F.scaled_dot_product_attention(q, k, v, attn_mask=keep, scale=1 / math.sqrt(H // self.NH))
        ctx = ctx.transpose(1, 2).reshape(B, S, H)
        x = F.layer_norm(F.linear(ctx, L["ao.w"], L["ao.b"]) + x, (H,), L["aln.w"], L["aln.b"], eps=self.eps)
        h = F.gelu(F.linear(x, L["fi.w"], L["fi.b"]))
        return F.layer_norm(F.linear(h, L["fo.w"], L["fo.b"]) + x, (H,), L["oln.w"], L["oln.b"], eps=self.eps)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor, qlen: torch.Tensor) -> torch.Tensor:
        S = ids.shape[1]
        keep = mask[:, None, None, :]
        with torch.no_grad():
            x = self.word[ids] + self.pos[:S] + self.typ
            x = F.layer_norm(x, (self.H,), self.eln_w, self.eln_b, eps=self.eps)
            for L in self.frozen:
                x = self.layer(x, keep, L)
        for L in self.trained:
            x = self.layer(x, keep, L)
        x = x.float()
        m = mask.float()
        ar = torch.arange(S, device=ids.device)
        qm = ((ar[None, :] >= 1) & (ar[None, :] <= qlen[:, None])).float()
        pm = m - qm
        pm[:, 0] = 0.0
        pooled = torch.einsum("bs,bsh->bh", m, x) / m.sum(dim=1, keepdim=True)
        pq = torch.einsum("bs,bsh->bh", qm, x) / qm.sum(dim=1, keepdim=True).clamp(min=1)
        pp = torch.einsum("bs,bsh->bh", pm, x) / pm.sum(dim=1, keepdim=True).clamp(min=1)
        return self.head_scale * F.cosine_similarity(pq, pp, dim=-1) + pooled @ self.head_w + self.head_b

    def arrays(self) -> dict[str, np.ndarray]:
        out = {n: p.detach().float().cpu().numpy() for n, p in zip(self.names, self.params)}
        out["head.w"] = self.head_w.detach().float().cpu().numpy()
        out["head.b"] = self.head_b.detach().float().cpu().numpy().reshape(1)
        out["head.scale"] = self.head_scale.detach().float().cpu().numpy().reshape(1)
        return out


class Data:
    """The packed groups: token ids of paragraphs, questions and sentences, and who is whose."""

    def __init__(self, pack: str, bos: int, eos: int, pad: int) -> None:
        z = np.load(os.path.join(pack, "tokens.npz"))

        def rows(ids: np.ndarray, off: np.ndarray) -> list[np.ndarray]:
            return [ids[off[i] : off[i + 1]] for i in range(len(off) - 1)]

        self.p, self.q, self.s = rows(z["p_ids"], z["p_off"]), rows(z["q_ids"], z["q_off"]), rows(z["s_ids"], z["s_off"])
        self.s_lo, self.s_hi = z["p_sent_lo"], z["p_sent_hi"]
        self.pid, self.negs, self.rank = z["g_pid"], z["g_negs"], z["g_rank"]
        self.split, self.sent, self.amask = z["g_split"], z["g_sent"], z["g_answer_mask"]
        self.bos, self.eos, self.pad = bos, eos, pad

    def seq(self, g: int, passage: np.ndarray) -> list[int]:
        """`pair_ids` of kotae.search.e5_rerank, on ids."""
        q = self.q[g].tolist()
        return [self.bos, *q, self.eos, self.eos, *passage[: max(1, MAX_TOKENS - len(q) - 4)].tolist(), self.eos]

    def passage_group(self, g: int, size: int, rng: random.Random, hard: int = 20) -> list[int]:
        """The answer's paragraph, then `size - 1` negatives: kotae's top hits first, random paragraphs after."""
        negs = [int(n) for n in self.negs[g][:hard] if n >= 0]
        rng.shuffle(negs)
        negs = negs[: size - 1]
        pos = int(self.pid[g])
        while len(negs) < size - 1:
            r = rng.randrange(len(self.p))
            if r != pos and r not in negs:
                negs.append(r)
        return [pos, *negs]

    def sentence_group(self, g: int, size: int, rng: random.Random) -> list[int] | None:
        """The answer's sentence, then up to `size - 1` others: its paragraph's first, then the hard negatives'."""
        right = int(self.sent[g])
        if right < 0:
            return None
        pos = int(self.pid[g])
        lo, hi = int(self.s_lo[pos]), int(self.s_hi[pos])
        mask = int(self.amask[g])
        same = [s for s in range(lo, hi) if s != right and not (mask >> (s - lo)) & 1]
        rng.shuffle(same)
        out = same[: size - 1]
        for n in self.negs[g][:5]:
            if len(out) >= size - 1 or n < 0:
                break
            out += list(range(int(self.s_lo[n]), int(self.s_hi[n])))[: size - 1 - len(out)]
        return [right, *out] if out else None


def batch(data: Data, rows: list[tuple[int, list[int]]], sentences: bool,
          device: torch.device) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    seqs, qlens = [], []
    for g, items in rows:
        table = data.s if sentences else data.p
        for i in items:
            seqs.append(data.seq(g, table[i]))
            qlens.append(len(data.q[g]))
    S = max(len(s) for s in seqs)
    ids = np.full((len(seqs), S), data.pad, dtype=np.int64)
    mask = np.zeros((len(seqs), S), dtype=bool)
    for r, s in enumerate(seqs):
        ids[r, : len(s)] = s
        mask[r, : len(s)] = True
    return (torch.from_numpy(ids).to(device), torch.from_numpy(mask).to(device),
            torch.tensor(qlens, device=device))


def scores_of(model: Cross, data: Data, rows: list[tuple[int, list[int]]], sentences: bool,
              device: torch.device, chunk: int = 64) -> list[np.ndarray]:
    out = []
    model.eval()
    with torch.no_grad(), torch.autocast(device.type, dtype=torch.bfloat16):
        for a in range(0, len(rows), chunk):
            part = rows[a : a + chunk]
            s = model(*batch(data, part, sentences, device)).float().cpu().numpy()
            o = 0
            for _, items in part:
                out.append(s[o : o + len(items)])
                o += len(items)
    model.train()
    return out


def mrr(score_lists: list[np.ndarray]) -> tuple[float, float]:
    """(MRR, hit@1) of item 0 in each list; ties count against it."""
    ranks = [1 + int((s[1:] >= s[0]).sum()) for s in score_lists]
    return float(np.mean([1 / r for r in ranks])), float(np.mean([r == 1 for r in ranks]))


def evaluate(model: Cross, data: Data, val: list[int], device: torch.device, passages: bool = True) -> dict[str, Any]:
    """Validation: the answer's paragraph among 15 others (fixed draw), kotae's hybrid top 10 reranked (where
    the answer's paragraph is in it), and the answer's sentence among its paragraph's sentences."""
    sgroups = [(g, items) for g in val if (items := data.sentence_group(g, 16, random.Random(g))) is not None]
    s_mrr, s_hit = mrr(scores_of(model, data, sgroups, True, device))
    sentence = {"sentence_questions": len(sgroups), "sentence_mrr": round(s_mrr, 4), "sentence_hit1": round(s_hit, 4)}
    if not passages:
        return sentence
    rng = random.Random(7)
    groups = [(g, data.passage_group(g, 16, rng)) for g in val]
    p_mrr, p_hit = mrr(scores_of(model, data, groups, False, device))
    top10 = []
    for g in val:
        r = int(data.rank[g])
        if 1 <= r <= 10:
            negs = [int(n) for n in data.negs[g] if n >= 0]
            top10.append((g, r, [int(data.pid[g]), *negs[:9]]))
    sc = scores_of(model, data, [(g, items) for g, _, items in top10], False, device)
    hyb = [1 / r for _, r, _ in top10]
    rr_mrr, rr_hit = mrr(sc)
    return {**sentence, "group16_mrr": round(p_mrr, 4), "group16_hit1": round(p_hit, 4),
            "top10_questions": len(top10), "hybrid_top10_mrr": round(float(np.mean(hyb)), 4),
            "hybrid_top10_hit1": round(float(np.mean([r == 1 for _, r, _ in top10])), 4),
            "reranked_top10_mrr": round(rr_mrr, 4), "reranked_top10_hit1": round(rr_hit, 4)}


def save_parts(arrays: dict[str, np.ndarray], meta: dict[str, Any], out: str) -> list[str]:
    packed = pack_weights(arrays)
    parts: list[dict[str, np.ndarray]] = [{}]
    size = 0
    for name in sorted(packed, key=lambda n: (not n.startswith("l"), n)):
        a = packed[name]
        if size + a.nbytes > PART_BYTES and parts[-1]:
            parts.append({})
            size = 0
        parts[-1][name] = a
        size += a.nbytes
    paths = []
    for k, part in enumerate(parts):
        path = os.path.join(out, f"rerank-part{k}.npz")
        np.savez_compressed(path, **part, meta=np.array(json.dumps(meta)))
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pack")
    ap.add_argument("out")
    ap.add_argument("--minutes", type=float, default=5)
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--groups", type=int, default=32, help="passage groups per step (16 pairs each; 0: the sentence "
                                                           "task alone, also in validation)")
    ap.add_argument("--sentence-groups", type=int, default=32, help="sentence groups per step (8 pairs each)")
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--val", type=int, default=1500)
    ap.add_argument("--save-every", type=float, default=90, help="seconds between saved parts")
    ap.add_argument("--seed", type=int, default=13)
    a = ap.parse_args(argv)
    t_start = time.time()
    torch.manual_seed(a.seed)
    torch.set_num_threads(int(os.environ.get("TRAIN_THREADS", str(os.cpu_count() or 1))))
    rng = random.Random(a.seed)
    device = torch.device(a.device)
    os.makedirs(a.out, exist_ok=True)
    with lzma.open(os.path.join(a.pack, "e5-small-q4.bin.xz")) as fh:
        f = read_e5_file(fh.read())
    with open(os.path.join(a.pack, "meta.json")) as fh:
        pack_meta = json.load(fh)
    data = Data(a.pack, f.bos, f.eos, f.pad)
    model = Cross(f, a.layers, device)
    train = [g for g in range(len(data.pid)) if data.split[g] == 0]
    val = [g for g in range(len(data.pid)) if data.split[g] == 1][: a.val]
    rng.shuffle(train)
    print(f"{len(train)} training groups, {len(val)} validation groups, device {device}, "
          f"{time.time() - t_start:.0f} s to load", flush=True)
    before = evaluate(model, data, val, device, passages=a.groups > 0)
    print("before", json.dumps(before), flush=True)
    opt = torch.optim.AdamW([{"params": list(model.params), "lr": a.lr},
                             {"params": [model.head_w, model.head_b, model.head_scale], "lr": 1e-3}],
                            weight_decay=0.01)
    base_lrs = [g["lr"] for g in opt.param_groups]
    budget = a.minutes * 60
    t0 = time.time()
    last_save = t0
    step, seen, sentence_seen, log = 0, 0, 0, []
    meta: dict[str, Any] = {}
    losses: list[tuple[float, float]] = []
    while time.time() - t0 < budget:
        frac = (time.time() - t0) / budget
        for grp, lr in zip(opt.param_groups, base_lrs):
            grp["lr"] = lr * min(1.0, (step + 1) / 50) * max(0.0, 1 - frac)
        prow = []
        for _ in range(a.groups):
            g = train[seen % len(train)]
            seen += 1
            prow.append((g, data.passage_group(g, 16, rng)))
        srow = []
        while len(srow) < a.sentence_groups:
            g = train[rng.randrange(len(train))]
            sentence_seen += 1
            items = data.sentence_group(g, 8, rng)
            if items is not None:
                srow.append((g, items))
        with torch.autocast(device.type, dtype=torch.bfloat16):
            lp = torch.zeros((), device=device)
            if prow:
                sp = model(*batch(data, prow, False, device)).float().view(len(prow), 16)
                lp = F.cross_entropy(sp, torch.zeros(len(prow), dtype=torch.long, device=device))
            ss = model(*batch(data, srow, True, device)).float()
        # sentence groups differ in size: a softmax per group, padded with -inf
        width = max(len(items) for _, items in srow)
        padded = torch.full((len(srow), width), float("-inf"), device=device)
        o = 0
        for r, (_, items) in enumerate(srow):
            padded[r, : len(items)] = ss[o : o + len(items)]
            o += len(items)
        ls = F.cross_entropy(padded, torch.zeros(len(srow), dtype=torch.long, device=device))
        loss = lp + ls
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append((float(lp.detach()), float(ls.detach())))
        step += 1
        if step % 50 == 0:
            lp_m, ls_m = np.mean(losses[-50:], axis=0)
            line = (f"step {step} groups {seen} + {sentence_seen} sentence groups, passage loss {lp_m:.3f} sentence loss {ls_m:.3f} "
                    f"{(time.time() - t0) / step:.3f} s/step")
            log.append(line)
            print(line, flush=True)
        if time.time() - last_save > a.save_every:
            meta = {"layers": a.layers, "first": model.first, "max_tokens": MAX_TOKENS, "steps": step,
                    "digest": pack_meta["digest"], "data": "JaQuAD train (CC BY-SA 3.0)", "partial": True}
            save_parts(model.arrays(), meta, a.out)
            last_save = time.time()
    after = evaluate(model, data, val, device, passages=a.groups > 0)
    print("after", json.dumps(after), flush=True)
    meta = {"layers": a.layers, "first": model.first, "max_tokens": MAX_TOKENS, "steps": step,
            "groups": seen, "sentence_groups": sentence_seen, "digest": pack_meta["digest"],
            "val_group16_mrr": after.get("group16_mrr"), "val_top10_hit1": after.get("reranked_top10_hit1"),
            "val_sentence_hit1": after["sentence_hit1"], "minutes": round((time.time() - t0) / 60, 1),
            "lr": a.lr, "groups_per_step": a.groups, "sentence_groups_per_step": a.sentence_groups,
            "data": "JaQuAD train (CC BY-SA 3.0)"}
    parts = save_parts(model.arrays(), meta, a.out)
    gpu = torch.cuda.get_device_name(0) if device.type == "cuda" else "none"
    with open(os.path.join(a.out, "train.json"), "w") as fh:
        json.dump({"meta": meta, "pack": pack_meta, "before": before, "after": after, "log": log, "gpu": gpu,
                   "torch": torch.__version__, "parts": [os.path.basename(p) for p in parts]}, fh, indent=1)
    print(json.dumps(meta), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
