"""Commands for conversations: chat (a thread in the terminal, one question a line) and conversations."""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from kotae.cli.ask import add_llm_args, add_search_args, filter_from, format_answer
from kotae.cli.docs import open_index


def add_commands(sub: argparse._SubParsersAction, command: Callable[..., argparse.ArgumentParser]) -> None:  # type: ignore[type-arg]
    c = command(sub, "chat", help="ask follow-up questions in a conversation kept in the index (one a line)")
    c.add_argument("--conversation", metavar="ID", help="go on with this conversation (default: a new one)")
    c.add_argument("--title", default="", help="title of a new conversation (default: its first question)")
    c.add_argument("--json", action="store_true", help="print each answer as one line of JSON")
    add_search_args(c)
    add_llm_args(c)
    c.set_defaults(run=cmd_chat)

    c = command(sub, "conversations", help="list, show, rename or delete conversations")
    c.add_argument("action", nargs="?", default="list", choices=("list", "show", "rename", "delete"))
    c.add_argument("id", nargs="?", help="the conversation (show, rename, delete)")
    c.add_argument("title", nargs="?", help="the new title (rename)")
    c.add_argument("--json", action="store_true", help="print JSON")
    c.set_defaults(run=cmd_conversations)


def cmd_chat(args: argparse.Namespace) -> int:
    with open_index(args) as k:
        conv = k.conversation(args.conversation)[0] if args.conversation else k.new_conversation(args.title)
        _ = k.llm  # loaded once, before the first question
        interactive = sys.stdin.isatty()
        print(f"conversation {conv.id}" + (" (empty line or Ctrl-D to quit)" if interactive else ""),
              file=sys.stderr)
        while True:
            try:
                line = input("質問 / question> " if interactive else "")
            except EOFError:
                return 0
            question = line.strip()
            if not question:
                if interactive:
                    return 0
                continue
            answer, message = k.ask_in(conv.id, question, filters=filter_from(args))
            if args.json:
                print(json.dumps({**message.answer, "message_id": message.id, "conversation_id": conv.id,
                                  "standalone": message.standalone}, ensure_ascii=False))
            else:
                if message.standalone != question:
                    print(f"(searched: {message.standalone})")
                print(format_answer(answer) + "\n", flush=True)


def cmd_conversations(args: argparse.Namespace) -> int:
    from kotae.errors import ConfigError

    if args.action != "list" and not args.id:
        raise ConfigError(f"kotae conversations {args.action} needs the conversation's id; see kotae conversations")
    with open_index(args) as k:
        if args.action == "list":
            rows = [c.to_dict() for c in k.conversations()]
            if args.json:
                print(json.dumps(rows, ensure_ascii=False, indent=2))
            for c in [] if args.json else rows:
                print(f"{c['id']}  {c['updated'][:19]}  {c['turns']:>3} turns  {c['title'] or '(untitled)'}")
        elif args.action == "show":
            conv, messages = k.conversation(args.id)
            if args.json:
                print(json.dumps({**conv.to_dict(), "messages": [m.to_dict() for m in messages]},
                                 ensure_ascii=False, indent=2))
            else:
                print(conv.title or "(untitled)")
                for m in messages:
                    print(f"\nQ: {m.question}" + (f"\n   (searched: {m.standalone})" if m.standalone != m.question
                                                   else "") + f"\nA: {m.answer.get('answer', '')}")
        elif args.action == "rename":
            if not args.title:
                raise ConfigError("kotae conversations rename ID TITLE needs the new title")
            print(k.rename_conversation(args.id, args.title).title)
        else:
            k.delete_conversation(args.id)
            print(f"deleted {args.id}")
    return 0
