"""A cross-encoder with random weights and MiniLM-L6's shape, exported to ONNX: for rerank *latency* only.

    python bench/make_sized_cross_encoder.py /tmp/ce          # then: python bench/latency.py --reranker onnx:/tmp/ce

No cross-encoder ships in any package reachable offline, but the cost of the rerank stage depends on the
model's shape (6 layers, hidden 384, 12 heads, FFN 1536: cross-encoder/ms-marco-MiniLM-L-6-v2), the
number of pairs and their length, not on the weights. This builds that shape with random weights
(transformers + torch, dev-only), a WordPiece tokenizer trained on the sample documents (Japanese splits
into characters, as multilingual WordPiece vocabularies mostly do), and exports both in the layout
`--reranker onnx:DIR` reads. Its scores are meaningless: use it to measure time, never quality.
"""
from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main() -> int:
    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/kotae-sized-cross-encoder"
    import torch
    import transformers
    from tokenizers import BertWordPieceTokenizer

    from kotae.ingest import read_document
    from kotae.pipeline import discover

    texts = [p for path, _ in discover([os.path.join(ROOT, "samples", "docs")]) for p in read_document(path).pages]
    tok = BertWordPieceTokenizer(lowercase=True)
    tok.train_from_iterator(texts, vocab_size=30522)
    os.makedirs(out, exist_ok=True)
    tok.save(os.path.join(out, "tokenizer.json"))
    config = transformers.BertConfig(vocab_size=tok.get_vocab_size(), hidden_size=384, num_hidden_layers=6,
                                     num_attention_heads=12, intermediate_size=1536, num_labels=1,
                                     max_position_embeddings=512)
    torch.manual_seed(0)
    model = transformers.BertForSequenceClassification(config).eval()
    ids = torch.ones((2, 16), dtype=torch.long)
    torch.onnx.export(model, (ids, torch.ones_like(ids), torch.zeros_like(ids)), os.path.join(out, "model.onnx"),
                      input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["logits"],
                      dynamic_axes={n: {0: "batch", 1: "seq"} for n in ("input_ids", "attention_mask", "token_type_ids")},
                      opset_version=17, dynamo=False)
    print(f"wrote {out}/model.onnx and tokenizer.json (random weights, MiniLM-L6 shape: latency only)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
