#!/usr/bin/env python3
"""Writes the seed corpus for `cargo fuzz run analyse`: one file per peer-case command line
(`daemon/tests/peer-cases/*.jsonl`) and per case of our own tables (`daemon/tests/cases/*.jsonl`:
inline Python, JavaScript, Ruby and PHP programs, SQL, containers among them), named by its
SHA-1 as libFuzzer names corpus files, plus
a few long lines built from them so that `-max_len` is exercised from the start.

The lines are the most destructive shell there is: this program only copies them into files
for the fuzz target, which hands them to the analyser. Nothing here runs them.

Usage (from the repository root): python3 fuzz/seed_corpus.py [OUT_DIR]
OUT_DIR defaults to fuzz/corpus/analyse, which fuzz/.gitignore keeps out of git.
"""

import hashlib
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
CASES = ROOT / "daemon" / "tests" / "peer-cases"
OWN = ROOT / "daemon" / "tests" / "cases"


def commands():
    for path in sorted(CASES.glob("*.jsonl")) + sorted(OWN.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            command = record.get("command")
            if isinstance(command, str) and command:
                yield command


def main():
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "fuzz" / "corpus" / "analyse"
    out.mkdir(parents=True, exist_ok=True)
    seeds = list(dict.fromkeys(commands()))
    # Long lines: many commands joined, the way an agent chains them, up to about 64 KiB.
    for sep in ("; ", " && ", " | ", "\n"):
        joined = sep.join(seeds[:400])
        seeds.append(joined[: 64 * 1024])
    written = 0
    for seed in seeds:
        data = seed.encode("utf-8")
        name = hashlib.sha1(data).hexdigest()
        target = out / name
        if not target.exists():
            target.write_bytes(data)
            written += 1
    print(f"{len(seeds)} seeds, {written} new files in {out}")


if __name__ == "__main__":
    main()
