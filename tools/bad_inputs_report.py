"""Print the bad-input tally: every case of tests/bad_inputs/, by outcome and by module.

python tools/bad_inputs_report.py            # the tally
python tools/bad_inputs_report.py -v         # ... and every case that did not get a good error
python tools/bad_inputs_report.py --semantic # ... and every semantic case (right in type, wrong in meaning)
python tools/bad_inputs_report.py dl4nlp.rnn # only the callables whose name starts with this
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from bad_inputs.harness import EXEMPT, SEMANTIC, all_cases, registered_targets, report, run  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefix", nargs="?", default="", help="only callables whose qualified name starts with this")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every case without a good error")
    parser.add_argument("--exempt", action="store_true", help="list the exempt callables and why")
    parser.add_argument("--semantic", action="store_true", help="list every semantic case and how it fared")
    args = parser.parse_args(argv)
    targets = [t for t in registered_targets() if t.startswith(args.prefix)]
    results = [run(case) for case in all_cases(targets)]
    print(report(results, verbose=args.verbose))
    if args.semantic:
        print("\nsemantic cases:")
        for r in results:
            if r.case.kind == SEMANTIC:
                print(f"  [{r.outcome}] {r.case.target}: {r.case.label}  ->  {' '.join(r.detail.split())[:200]}")
    if args.exempt:
        print("\nexempt:")
        for name in sorted(EXEMPT):
            if name.startswith(args.prefix):
                print(f"  {name}: {EXEMPT[name]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
