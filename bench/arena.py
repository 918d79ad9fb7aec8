"""Arena throughput: matches per second (`python -m bench.arena [--matches N]`).

Measures the whole tournament path (workers, chunks, results, disqualification checks):
- minimal-valid vs simple in Python with --jobs 1 and with all cores;
- the seed's MinimalValid vs Simple in JavaScript (Node.js), with all cores;
- the same two bots as Python files (each runs in its own process, as every bot file does),
  with all cores.
The last line printed is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path

from bot.arena.loader import resolve_all
from bot.arena.tournament import default_jobs, run

PY_FILES = {
    "minimal_valid.py": "class MinimalValid:\n    name = 'MinimalValid'\n"
                        "    def draft_pick(self, cards): return 0\n"
                        "    def draft_receive(self, card): pass\n"
                        "    def main_play(self, cards, base): return 0\n"
                        "    def main_postprocess(self, card): pass\n",
    "simple.py": "class Simple:\n    name = 'Simple'\n"
                 "    def draft_pick(self, cards): return 1 if cards[0][1] < cards[1][1] else 0\n"
                 "    def draft_receive(self, card): pass\n"
                 "    def main_play(self, cards, base): return 0\n"
                 "    def main_postprocess(self, card): pass\n",
}
EXAMPLES = Path(__file__).resolve().parent.parent / "bot" / "arena" / "examples"


def measure(bots: list[str], matches: int, jobs: int) -> dict:
    specs = resolve_all(bots)
    start = time.perf_counter()
    results = run(specs, matches, seed=1, jobs=jobs, limit=1.0)
    seconds = time.perf_counter() - start
    assert len(results) == matches
    return {"bots": bots, "jobs": jobs, "matches": matches, "seconds": round(seconds, 3),
            "matches_per_s": round(matches / seconds)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=400_000,
                        help="matches per Python measurement (default 400000)")
    parser.add_argument("--js-matches", type=int, default=4_000,
                        help="matches of the JavaScript measurement (default 4000)")
    args = parser.parse_args()
    cores = default_jobs()
    out: dict = {"python": platform.python_version(), "implementation":
                 platform.python_implementation(), "cores": cores, "cpu_count": os.cpu_count()}
    pair = ["minimal-valid", "simple"]
    out["python_jobs_1"] = measure(pair, args.matches // 2, 1)
    print(f"python minimal-valid vs simple, 1 job:  "
          f"{out['python_jobs_1']['matches_per_s']:>9,} matches/s")
    out["python_all_cores"] = measure(pair, args.matches, cores)
    print(f"python minimal-valid vs simple, {cores} jobs: "
          f"{out['python_all_cores']['matches_per_s']:>9,} matches/s")
    if shutil.which("node"):
        js = [str(EXAMPLES / "minimal_valid.js"), str(EXAMPLES / "simple.js")]
        out["javascript_all_cores"] = measure(js, args.js_matches, cores)
        print(f"javascript MinimalValid vs Simple, {cores} jobs: "
              f"{out['javascript_all_cores']['matches_per_s']:>9,} matches/s")
    else:
        out["javascript_all_cores"] = None
        print("javascript: skipped (Node.js not found)")
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for name, text in PY_FILES.items():
            path = Path(tmp) / name
            path.write_text(text)
            files.append(str(path))
        out["python_files_all_cores"] = measure(files, args.js_matches, cores)
    print(f"python files MinimalValid vs Simple (own processes), {cores} jobs: "
          f"{out['python_files_all_cores']['matches_per_s']:>9,} matches/s")
    out["target_matches_per_s"] = 100_000
    out["target_met"] = out["python_all_cores"]["matches_per_s"] >= 100_000
    print(json.dumps(out))


if __name__ == "__main__":
    main()
