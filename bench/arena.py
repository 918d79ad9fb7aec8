"""Arena throughput beside the reference controller, in one run (`python -m bench.arena`).

Prints matches per second, each with its ratio to the reference measured in the same run:
- the reference: a controller in the seed's style in JavaScript (REFERENCE_JS: the seed's
  MinimalValid and Simple in its own process, frozen, Math.random shuffles), 100,000 matches,
  timed as a whole process (node's start-up included);
- `umpire arena minimal-valid simple --rounds 100000`, timed as a whole process;
  these two run `--repeat` times each, alternating, and the median of each is shown (with
  the range) and compared, since one run of either moves by tens of percent on a shared
  machine; the project's bytecode is compiled first (`compileall`), as an installed copy
  and any second run have it, so that an environment with PYTHONDONTWRITEBYTECODE set does
  not time the compiling of the source (about 20 ms a start here);
- the same two bots as Python files and as JavaScript files (each bot file in its own
  process, as always), through the tournament path in this process: files whose
  notification methods are empty (`PY_FILES`, `bot/arena/examples/*.js`), which the arena
  does not call;
- the two bots as authors write them, whose notification methods do work (`WORK_FILES`,
  so every call is made), as Python files and as JavaScript files, each timed as a whole
  process (`umpire arena work_minimal_valid.py work_simple.py --rounds 100000`), its runs
  alternating with the reference's.
The load average is printed with the figures (the machine is shared), and beside each figure
the CPU time per match of every process involved (start-ups included), which the load
changes much less than the wall time; the last line is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bot.arena.loader import resolve_all
from bot.arena.match import CORE
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
# The seed's two example bots as authors write them: every notification method does work
# (so the arena skips none), each match's state in the instance. These are timed as a
# whole process, like the built-ins: `umpire arena minimal_valid.py simple.py --rounds N`.
WORK_FILES = {
    "work_minimal_valid.py": "class MinimalValid:\n    name = 'MinimalValid'\n"
                             "    def __init__(self):\n        self.seen = []\n"
                             "    def draft_pick(self, cards): return 0\n"
                             "    def draft_receive(self, card): self.seen.append(card)\n"
                             "    def main_play(self, cards, base): return 0\n"
                             "    def main_postprocess(self, card): self.seen.append(card)\n",
    "work_simple.py": "class Simple:\n    name = 'Simple'\n"
                      "    def __init__(self):\n        self.my_deck = set()\n"
                      "        self.theirs = []\n"
                      "    def draft_pick(self, cards):\n"
                      "        card_id = 1 if cards[0][1] < cards[1][1] else 0\n"
                      "        self.my_deck.add(cards[card_id])\n        return card_id\n"
                      "    def draft_receive(self, card): self.my_deck.add(card)\n"
                      "    def main_play(self, cards, base):\n"
                      "        self.my_deck.discard(cards[0])\n        return 0\n"
                      "    def main_postprocess(self, card): self.theirs.append(card)\n",
    "work_minimal_valid.js": "{\nname: 'MinimalValid',\nseen: [],\n"
                             "draftPick(cards) { return 0; },\n"
                             "draftReceive(card) { this.seen.push(card); },\n"
                             "mainPlay(cards, base) { return 0; },\n"
                             "mainPostprocess(card) { this.seen.push(card); },\n},\n",
    "work_simple.js": "{\nname: 'Simple',\nmyDeck: new Set(),\ntheirs: [],\n"
                      "draftPick(cards) {\nlet cardId = cards[0][1] < cards[1][1] ? 1 : 0;\n"
                      "this.myDeck.add(cards[cardId]);\nreturn cardId;\n},\n"
                      "draftReceive(card) { this.myDeck.add(card); },\n"
                      "mainPlay(cards, base) { this.myDeck.delete(cards[0]); return 0; },\n"
                      "mainPostprocess(card) { this.theirs.push(card); },\n},\n",
}
REFERENCE_JS = r"""'use strict';
// A reference controller in the seed's style: round-robin cycles, the bots in this process,
// frozen, Math.random Fisher-Yates shuffles, the seed's judge on 2-character cards.
const MinimalValid = {
  name: 'MinimalValid',
  draftPick(cards) { return 0; }, draftReceive(card) {},
  mainPlay(cards, base) { return 0; }, mainPostprocess(card) {},
};
const Simple = {
  name: 'Simple', myDeck: new Set(),
  draftPick(cards) { let cardId = cards[0][1] < cards[1][1] ? 1 : 0; this.myDeck.add(cards[cardId]); return cardId; },
  draftReceive(card) { this.myDeck.add(card); },
  mainPlay(cards, base) { this.myDeck.delete(cards[0]); return 0; },
  mainPostprocess(card) {},
};
const bots = [MinimalValid, Simple].map(b => Object.freeze(b));
function shuffle(a) {
  for (let i = a.length - 1; i > 0; i--) { const j = Math.floor(Math.random() * (i + 1)); [a[i], a[j]] = [a[j], a[i]]; }
  return a;
}
const FULL = []; for (const s of 'RPS') for (let n = 0; n < 10; n++) FULL.push(s + n);
const BEATS = { R: 'S', S: 'P', P: 'R' };
function winner(a, b, base) {  // 0: a wins, 1: b wins
  const pa = a[1] === base[1], pb = b[1] === base[1];
  if (pa !== pb) return pa ? 0 : 1;
  if (a[1] !== b[1]) return a[1] > b[1] ? 0 : 1;
  return BEATS[a[0]] === b[0] ? 0 : 1;
}
function valid(i, n) { return Number.isInteger(i) && i >= 0 && i < n; }
function playMatch(p0, p1) {
  const ps = [p0, p1];
  const deck = shuffle(FULL.slice());
  const decks = [[], []];
  for (let r = 0; r < 5; r++) {
    const offers = [deck.slice(4 * r, 4 * r + 2), deck.slice(4 * r + 2, 4 * r + 4)];
    const picks = ps.map((p, s) => p.draftPick(offers[s].slice()));
    for (let s = 0; s < 2; s++) if (!valid(picks[s], 2)) return s === 0 ? [0, 10] : [10, 0];
    for (let s = 0; s < 2; s++) decks[s].push(offers[s][picks[s]]);
    ps[0].draftReceive(offers[1][1 - picks[1]]); decks[0].push(offers[1][1 - picks[1]]);
    ps[1].draftReceive(offers[0][1 - picks[0]]); decks[1].push(offers[0][1 - picks[0]]);
  }
  shuffle(decks[0]); shuffle(decks[1]);
  const rest = shuffle(deck.slice(20));
  const hands = [decks[0].splice(0, 3), decks[1].splice(0, 3)];
  const score = [0, 0];
  for (let g = 0; g < 10; g++) {
    const base = rest[g];
    const i0 = ps[0].mainPlay(hands[0].slice(), base); if (!valid(i0, hands[0].length)) return [0, 10];
    const i1 = ps[1].mainPlay(hands[1].slice(), base); if (!valid(i1, hands[1].length)) return [10, 0];
    const c0 = hands[0].splice(i0, 1)[0], c1 = hands[1].splice(i1, 1)[0];
    score[winner(c0, c1, base)]++;
    ps[0].mainPostprocess(c1); ps[1].mainPostprocess(c0);
    for (let s = 0; s < 2; s++) if (decks[s].length) hands[s].push(decks[s].shift());
  }
  return score;
}
const rounds = Number(process.argv[2] || '100000');
const total = new Array(bots.length).fill(0);
const t = process.hrtime.bigint();
for (let c = 0; c < rounds; c++) {
  for (let i = 0; i < bots.length; i++) for (let j = i + 1; j < bots.length; j++) {
    const [a, b] = c % 2 ? [j, i] : [i, j];
    const s = playMatch(bots[a], bots[b]); total[a] += s[0]; total[b] += s[1];
  }
}
const sec = Number(process.hrtime.bigint() - t) / 1e9;
console.log(JSON.stringify({ matches: rounds * bots.length * (bots.length - 1) / 2, seconds: sec, totals: total }));
"""
ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "bot" / "arena" / "examples"


def _cpu() -> float:
    """CPU seconds of this process and of its children that have ended (workers, bots)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def measure(bots: list[str], matches: int, jobs: int) -> dict:
    specs = resolve_all(bots)
    cpu = _cpu()
    start = time.perf_counter()
    results = run(specs, matches, seed=1, jobs=jobs, limit=1.0)
    seconds = time.perf_counter() - start
    cpu = _cpu() - cpu
    assert len(results) == matches
    return {"bots": bots, "jobs": jobs, "matches": matches, "seconds": round(seconds, 3),
            "matches_per_s": round(matches / seconds), "cpu_seconds": round(cpu, 3),
            "cpu_us_per_match": round(cpu / matches * 1e6, 1)}


def whole_process(command: list[str], matches: int) -> dict:
    """Wall and CPU time of a whole process (start-up included, and its workers and bot
    processes) that plays `matches` matches."""
    cpu = _cpu()
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    seconds = time.perf_counter() - start
    cpu = _cpu() - cpu
    return {"command": " ".join(command[-6:]), "matches": matches,
            "seconds": round(seconds, 3), "matches_per_s": round(matches / seconds),
            "cpu_seconds": round(cpu, 3), "cpu_us_per_match": round(cpu / matches * 1e6, 1)}


def median_run(runs: list[dict]) -> dict:
    """The run of median speed, with the range of all of them."""
    ranked = sorted(runs, key=lambda r: r["matches_per_s"])
    chosen = dict(ranked[(len(ranked) - 1) // 2])
    chosen["runs"] = len(runs)
    chosen["matches_per_s_range"] = [ranked[0]["matches_per_s"], ranked[-1]["matches_per_s"]]
    chosen["matches_per_s_median"] = round(statistics.median(r["matches_per_s"] for r in runs))
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=100_000,
                        help="matches of the reference and of the built-ins (default 100000)")
    parser.add_argument("--file-matches", type=int, default=20_000,
                        help="matches of each bot-file measurement (default 20000)")
    parser.add_argument("--work-matches", type=int, default=100_000,
                        help="matches of each whole-process run of the bot files whose "
                             "notifications do work (default 100000; 0 skips them)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of the reference and of the built-ins, alternating; the "
                             "median of each is shown (default 3)")
    args = parser.parse_args()
    cores = default_jobs()
    out: dict = {"python": platform.python_version(), "implementation":
                 platform.python_implementation(), "cores": cores, "cpu_count": os.cpu_count(),
                 "core": CORE, "load_before": os.getloadavg()}
    if args.repeat < 1 or args.matches < 1 or args.file_matches < 1 or args.work_matches < 0:
        parser.error("--repeat, --matches and --file-matches must be at least 1, "
                     "--work-matches at least 0")
    node = shutil.which("node")
    for package in ("bot", "games"):
        compileall.compile_dir(ROOT / package, quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        reference = None
        ref = Path(tmp) / "reference.js"
        ref.write_text(REFERENCE_JS)
        ours = [sys.executable, "-m", "bot.cli", "arena", "minimal-valid", "simple", "--rounds",
                str(args.matches), "--no-progress"]
        for name, text in WORK_FILES.items():
            (Path(tmp) / name).write_text(text)
        work = {lang: [*ours[:4], str(Path(tmp) / f"work_minimal_valid.{ext}"),
                       str(Path(tmp) / f"work_simple.{ext}"), "--rounds",
                       str(args.work_matches), "--no-progress"]
                for lang, ext in (("python_work_files", "py"), ("javascript_work_files", "js"))
                if args.work_matches and (ext == "py" or node)}
        runs: dict[str, list[dict]] = {"reference": [], "builtins": [], **{k: [] for k in work}}
        for _ in range(args.repeat):  # each figure's runs alternate with the reference's
            if node:
                runs["reference"].append(whole_process([node, str(ref), str(args.matches)],
                                                       args.matches))
            runs["builtins"].append(whole_process(ours, args.matches))
            for key, command in work.items():
                runs[key].append(whole_process(command, args.work_matches))
        if node:
            out["reference"] = reference = median_run(runs["reference"])
        out["builtins"] = median_run(runs["builtins"])
        for key in work:
            out[key] = median_run(runs[key])
        files = []
        for name, text in PY_FILES.items():
            path = Path(tmp) / name
            path.write_text(text)
            files.append(str(path))
        out["python_files"] = measure(files, args.file_matches, cores)
        if node:
            js = [str(EXAMPLES / "minimal_valid.js"), str(EXAMPLES / "simple.js")]
            out["javascript_files"] = measure(js, args.file_matches, cores)
    out["load_after"] = os.getloadavg()
    print(f"machine: {cores} cores, Python {out['python']}, load average "
          f"{out['load_before'][0]:.2f} before, {out['load_after'][0]:.2f} after; "
          f"arena core: {CORE}")
    for key, label in (("reference", "reference JS controller (whole process)"),
                       ("builtins", "umpire arena minimal-valid simple (whole process)"),
                       ("python_files", f"Python files, empty notifications, {cores} jobs"),
                       ("javascript_files", f"JS files, empty notifications, {cores} jobs"),
                       ("python_work_files", "Python files, working notices (whole process)"),
                       ("javascript_work_files", "JS files, working notices (whole process)")):
        figure = out.get(key)
        if figure is None:
            why = "--work-matches 0" if "work" in key and node else "Node.js not found"
            print(f"{label}: skipped ({why})")
            continue
        ratio = (f"  {figure['matches_per_s'] / reference['matches_per_s']:.2f} x the reference"
                 if reference else "")
        spread = ""
        if "matches_per_s_range" in figure:
            low, high = figure["matches_per_s_range"]
            spread = f"; median of {figure['runs']} runs, {low:,} to {high:,}"
        print(f"{label:<52} {figure['matches_per_s']:>9,} matches/s{ratio}"
              f"  ({figure['cpu_us_per_match']:.1f} us of CPU per match{spread})")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
