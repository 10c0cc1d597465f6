"""The sandbox under races through the Python host (issue 23): reads and captures while another process swaps
directories and files for links out of the grant (``tests/race/race.py``, shared by every host).

One session over the plan's grants reads the plan's paths and runs its captures (through the scenario runner's
code, so the answers are the JSON a user sees) until ``RACE_READS`` reads (default 20,000) and ``RACE_CAPTURES``
captures (default 1,000) are done, while ``race.py swap`` exchanges the pairs every 0.3 ms in a process of its
own. No answer may hold a forbidden string (the canary outside the grant, the secret behind the credential rules,
a name in the outside directory), no file may appear in the outside spill directory, and every spill path lies
under the writable grant.
"""

import importlib.util
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List

from read_window import ReadWindow, Session, scenarios

#: The shared fixture and swapper, from the repository root.
RACE_SCRIPT = Path(__file__).resolve().parents[3] / "tests" / "race" / "race.py"

#: Seconds the swapper is given to stop and print its count once its input is closed.
SWAPPER_STOP_SECONDS = 30


def _load_race_module() -> Any:
    """``tests/race/race.py`` as a module (its ``setup`` and its forbidden strings)."""
    spec = importlib.util.spec_from_file_location("race_fixture", RACE_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


race = _load_race_module()

#: How each forbidden string is named in the summary line.
LEAK_NAMES = {race.CANARY: "canaries", race.SECRET: "secrets", race.OUTSIDE_NAME: "outside names"}


def wanted(variable: str, default: int) -> int:
    """The count in the environment variable ``variable`` (a positive whole number), else ``default``. Raises
    ``ValueError`` for a value that is not a positive whole number."""
    value = int(os.environ.get(variable, default))
    if value <= 0:
        raise ValueError(f"{variable} must be a positive whole number, not {value}")
    return value


def start_swapper(root: str) -> subprocess.Popen:
    """Starts ``race.py swap root`` in a process of its own (so the GIL does not take turns with the reads); it
    swaps until its standard input is closed."""
    return subprocess.Popen(
        [sys.executable, str(RACE_SCRIPT), "swap", root],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def stop_swapper(swapper: subprocess.Popen) -> int:
    """Closes the swapper's input and returns how many exchanges it made. Raises ``RuntimeError`` when it failed
    (a rename refused) or printed no count."""
    out, err = swapper.communicate(timeout=SWAPPER_STOP_SECONDS)
    if swapper.returncode != 0:
        raise RuntimeError(f"the swapper exited with {swapper.returncode}: {err.strip()}")
    return json.loads(out.strip().splitlines()[-1])["swaps"]


def answer_kind(answer: Dict[str, Any]) -> str:
    """An answer's status, or its error's kind (``outside_sandbox``, ``not_found``, ...) when it is an error."""
    if answer.get("status") == "error":
        return answer["error"]["kind"]
    return answer["status"]


def capture_kind(end: Dict[str, Any]) -> str:
    """What a capture's end answer says of its spill: ``spilled``, ``spill_error``, ``no_spill``, or the error's
    kind."""
    if end.get("status") == "error":
        return end["error"]["kind"]
    if "spill_path" in end:
        return "spilled"
    return "spill_error" if "spill_error" in end else "no_spill"


class Tally:
    """What the race produced: counts of reads, captures, answer kinds, leaks (per forbidden string, with the first
    leaking answer of each) and spill paths outside the writable grant."""

    def __init__(self, forbidden: List[str], spill_root: str) -> None:
        self.forbidden = forbidden
        self.spill_root = spill_root.rstrip("/") + "/"
        self.reads = self.captures = 0
        self.answers: Counter = Counter()
        self.spills: Counter = Counter()
        self.leaks: Counter = Counter()
        self.first_leaks: Dict[str, str] = {}
        self.stray_spills: List[str] = []

    def check(self, answer: Dict[str, Any]) -> None:
        """Counts the forbidden strings in the whole answer (content, hint, messages, suggestions, spill path)."""
        text = json.dumps(answer, ensure_ascii=False)
        for string in self.forbidden:
            if string in text:
                self.leaks[string] += 1
                self.first_leaks.setdefault(string, text)

    def read(self, answer: Dict[str, Any]) -> None:
        """Records the answer to one read."""
        self.reads += 1
        self.answers[answer_kind(answer)] += 1
        self.check(answer)

    def capture(self, answers: List[Dict[str, Any]]) -> None:
        """Records the answers to one capture's begin, chunk and end."""
        self.captures += 1
        for answer in answers:
            self.check(answer)
        for answer in answers[:-1]:
            if answer != {"status": "ok"}:
                self.spills[f"capture step {answer_kind(answer)}"] += 1
        end = answers[-1]
        self.spills[capture_kind(end)] += 1
        spill_path = end.get("spill_path")
        if spill_path is not None and not os.path.normpath(spill_path).startswith(self.spill_root):
            self.stray_spills.append(spill_path)

    def summary(self, outside_files: List[str], swaps: int, seconds: float) -> str:
        """The one line the test prints: counts, leaks, swaps, seconds and the tally of answers."""
        leaks = ", ".join(f"{self.leaks[s]} {LEAK_NAMES.get(s, s)}" for s in self.forbidden)
        answers = ", ".join(f"{kind} {count}" for kind, count in self.answers.most_common())
        spills = ", ".join(f"{kind} {count}" for kind, count in self.spills.most_common())
        return (
            f"race (python): {self.reads} reads, {self.captures} captures, {leaks}, {len(outside_files)} outside "
            f"spills, {len(self.stray_spills)} spill paths outside the grant, {swaps} swaps, {seconds:.1f} s; "
            f"answers: {answers}; captures: {spills}"
        )


def exercise(session: Session, plan: Dict[str, Any], reads: int, captures: int, tally: Tally) -> None:
    """Runs the plan's reads and captures in turn, a capture after every ``reads / captures`` reads, until
    ``reads`` reads and ``captures`` captures are done; records every answer in ``tally``."""
    read_steps = itertools.cycle(plan["reads"])
    capture_steps = itertools.cycle(plan["captures"])
    while tally.reads < reads or tally.captures < captures:
        behind = tally.captures * reads < tally.reads * captures
        if tally.captures < captures and (behind or tally.reads >= reads):
            tally.capture([scenarios.answer_step(session, step) for step in next(capture_steps)])
        else:
            tally.read(scenarios.answer_step(session, next(read_steps)))


def files_under(directory: str) -> List[str]:
    """Every entry that is not a directory under ``directory`` (files, links, fifos), as paths."""
    found = []
    for parent, _, names in os.walk(directory):
        found.extend(os.path.join(parent, name) for name in names)
    return found


class RaceTest(unittest.TestCase):
    reader: ReadWindow

    @classmethod
    def setUpClass(cls):
        cls.reader = ReadWindow()

    def test_no_answer_leaks_while_the_tree_is_swapped(self):
        reads, captures = wanted("RACE_READS", 20_000), wanted("RACE_CAPTURES", 1_000)
        with tempfile.TemporaryDirectory(prefix="read-window-race-") as root:
            plan = race.setup(root)
            tally = Tally(plan["forbidden"], next(iter(plan["writable_grants"])))
            started = time.monotonic()
            with Session(self.reader, plan["grants"], plan["config"], writable=plan["writable_grants"]) as session:
                swapper = start_swapper(root)
                try:
                    exercise(session, plan, reads, captures, tally)
                finally:
                    swaps = stop_swapper(swapper)
            seconds = time.monotonic() - started
            outside_files = files_under(plan["outside_spill"])
        print(tally.summary(outside_files, swaps, seconds), flush=True)
        self.assertEqual(dict(tally.leaks), {}, f"first leaking answers: {tally.first_leaks}")
        self.assertEqual(outside_files, [])
        self.assertEqual(tally.stray_spills, [])
        self.assertGreater(swaps, 0)
        self.assertEqual((tally.reads, tally.captures), (reads, captures))
        # The race only means something when the inside files were read and spills were written.
        self.assertGreater(tally.answers["ok"], 0)
        self.assertGreater(tally.spills["spilled"], 0)
        self.assertEqual(tally.answers["host_error"], 0, "a read trapped while the tree was swapped")


if __name__ == "__main__":
    unittest.main()
