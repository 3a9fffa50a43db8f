"""``python -m devtools.vectors --out DIR [--seed S] [--per-rule N]``: write a set of vectors
(the published one, ``conformance/``, with the defaults).

Exit status 0, or 2 (with one line on standard error) when the directory cannot be written.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from devtools.vectors.export import DEFAULT_PER_RULE, DEFAULT_SEED, export


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devtools.vectors", description=__doc__)
    parser.add_argument("--out", required=True, type=Path, help="the directory to write")
    parser.add_argument(
        "--seed",
        type=int,
        default=DEFAULT_SEED,
        help="seed of the search (default: %(default)s, the published set's)",
    )
    parser.add_argument("--per-rule", type=_positive, default=DEFAULT_PER_RULE,
                        help="most vectors per rule (default: %(default)s)")  # fmt: skip
    args = parser.parse_args(argv)
    try:
        count = export(args.out, args.seed, args.per_rule)
    except OSError as err:
        print(f"cannot write {err.filename or args.out}: {err.strerror or err}", file=sys.stderr)
        return 2
    print(f"{count} vectors written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
