"""``tokcheck receipt RUN`` — an evidence receipt of a run directory; ``--check`` verifies one."""

from __future__ import annotations

import argparse
import json


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "receipt",
        help="write (or --check) an evidence receipt: SHA-256 of every file of a run plus its conditions",
        description="Write RUN/receipt.json: the SHA-256 of every file of the run directory and the "
                    "conditions that make it reproducible (GPU model, driver, clocks and power limit "
                    "where known, the engine's flags as read back from its log, the workload, the "
                    "client), with a digest over all of it. With --check, recompute every hash and "
                    "say what changed (exit 1 when anything did).",
    )
    p.add_argument("run", metavar="RUN_DIR", help="run directory written by `tokcheck bench`")
    p.add_argument("--check", action="store_true", help="verify the run against its receipt.json")
    p.add_argument("--json", action="store_true", help="print the receipt (or the check) as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tokcheck.record.receipt import check_receipt, make_receipt

    if args.check:
        check = check_receipt(args.run)
        if args.json:
            print(json.dumps(check.to_dict(), indent=2))
        elif check.ok:
            print(f"receipt OK: every file matches (digest {check.digest})")
        else:
            print(f"receipt FAILED (digest {check.digest})")
            if not check.digest_ok:
                print("  the receipt itself was edited: its digest does not match its content")
            for what, names in (("changed", check.changed), ("missing", check.missing), ("added", check.added)):
                for name in names:
                    print(f"  {what}: {name}")
        return 0 if check.ok else 1
    receipt = make_receipt(args.run)
    if args.json:
        print(json.dumps(receipt, indent=2, default=str))
    else:
        print(f"wrote {args.run.rstrip('/')}/receipt.json: {len(receipt['files'])} files, digest {receipt['digest']}")
    return 0
