"""The command-line options shared by ``python -m read_window read`` and ``read-window-mcp``: the directories to
grant (``--root``) and one option per field of the component's config, as the Rust CLI names them. The options are
converted to the config's JSON and nothing more: the component checks every value (one out of its range falls back
to its default, with a warning in the first answer).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence


def add_root_option(parser: argparse.ArgumentParser, help_text: str) -> None:
    """Adds ``--root DIR`` (repeatable) to ``parser``, as ``args.roots`` (a list, empty when none is given)."""
    parser.add_argument("--root", dest="roots", action="append", default=[], metavar="DIR", help=help_text)


def add_config_options(parser: argparse.ArgumentParser) -> None:
    """Adds the config options (``--config FILE``, ``--max-lines`` ... ``--allow``) to ``parser``."""
    group = parser.add_argument_group("config", "one option per config field (docs/protocol.md); the options "
                                      "override the --config file field by field")
    group.add_argument("--config", metavar="FILE", help="a JSON file of config fields in snake_case (max_lines, "
                       "max_line_length, budget, working_directory, dedup, loop_warn_at, loop_block_at, "
                       "not_found_ttl_ms, deny_patterns, allow_patterns)")
    group.add_argument("--max-lines", type=int, metavar="N", help="lines per window at most (default 2000)")
    group.add_argument("--max-line-length", type=int, metavar="N",
                       help="characters shown of one line before it is clamped (default 2000)")
    budget = group.add_mutually_exclusive_group()
    budget.add_argument("--max-chars", type=int, metavar="N",
                        help="a budget of N characters of formatted content per window (default 100000)")
    budget.add_argument("--max-tokens", type=int, metavar="N", help="a budget of N estimated tokens per window")
    group.add_argument("--token-headroom", type=float, metavar="F",
                       help="with --max-tokens: the share of the token cap a window aims at (default 0.9)")
    group.add_argument("--cwd", metavar="DIR", help="the directory relative paths resolve against (default: the "
                       "current directory when it lies under a root, else the first root)")
    group.add_argument("--no-dedup", action="store_true", help="never answer a repeated window with a stub")
    group.add_argument("--loop-warn-at", type=int, metavar="N", help="the repeated read that warns (default 3)")
    group.add_argument("--loop-block-at", type=int, metavar="N", help="the repeated read that is refused (default 4)")
    group.add_argument("--not-found-ttl-ms", type=int, metavar="MS",
                       help="how long a miss counts towards the next miss of the same path (default 60000)")
    group.add_argument("--deny", action="append", default=[], metavar="GLOB",
                       help="a glob of credential files to refuse, added to the built-in deny-list (repeatable)")
    group.add_argument("--allow", action="append", default=[], metavar="GLOB",
                       help="a glob excepted from the credential deny-list (repeatable)")


def config_from(args: argparse.Namespace) -> Dict[str, Any]:
    """The config the options describe: the ``--config`` file's fields, each option over its field. ``--cwd`` is
    made absolute and canonical (host and guest paths agree). Raises ``OSError`` or ``ValueError`` when the file
    cannot be read or is not a JSON object."""
    config: Dict[str, Any] = {}
    if args.config:
        with open(args.config, encoding="utf-8") as file:
            config = json.load(file)
        if not isinstance(config, dict):
            raise ValueError(f"{args.config}: a config file holds one JSON object, not {type(config).__name__}")
    fields = {"max_lines": args.max_lines, "max_line_length": args.max_line_length,
              "loop_warn_at": args.loop_warn_at, "loop_block_at": args.loop_block_at,
              "not_found_ttl_ms": args.not_found_ttl_ms, "deny_patterns": args.deny or None,
              "allow_patterns": args.allow or None, "dedup": False if args.no_dedup else None,
              "working_directory": os.path.realpath(args.cwd) if args.cwd else None}
    config.update({field: value for field, value in fields.items() if value is not None})
    if args.max_chars is not None:
        config["budget"] = {"characters": args.max_chars}
    elif args.max_tokens is not None or args.token_headroom is not None:
        file_tokens = (config.get("budget") or {}).get("tokens") if isinstance(config.get("budget"), dict) else None
        tokens = dict(file_tokens) if isinstance(file_tokens, dict) else {}
        tokens.update({key: value for key, value in (("cap", args.max_tokens), ("headroom", args.token_headroom))
                       if value is not None})
        config["budget"] = {"tokens": tokens}
    return config


def working_directory(roots: Sequence[str], cwd: Optional[str] = None) -> Optional[str]:
    """The guest working directory for directories ``roots`` granted at their canonical paths: the current
    directory (``cwd``, default ``os.getcwd()``) when it lies under one of them, else None (the first root is then
    the session's working directory)."""
    here = Path(os.path.realpath(cwd or os.getcwd()))
    for root in roots:
        canonical = Path(os.path.realpath(root))
        if here == canonical or canonical in here.parents:
            return str(here)
    return None


def grant_list(roots: List[str]) -> List[str]:
    """The directories to grant: ``roots``, or the current directory when there are none."""
    return list(roots) or [os.getcwd()]
