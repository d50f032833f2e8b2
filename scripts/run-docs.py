#!/usr/bin/env python3
"""Runs the shell blocks of the README and the guides, as a reader would, and checks their output.

    python3 scripts/run-docs.py [--self-test] FILE.md...

What it reads in each Markdown file:

- A fenced block whose info string is `sh` is run. Every block of a file runs in order in one
  `bash` (with `set -eo pipefail`), so a variable, a `cd` or a `source` carries over to the
  next block, as it does in the reader's terminal. The first command that fails stops the file,
  and the run names the file, the block's line and what it printed.
- A block whose info string is `output`, right after a `sh` block, is what that block prints on
  standard output. Lines are compared with their trailing blanks removed; `…` in a line matches
  any text, and a line that is only `…` matches any number of lines.
- An `sh` block right after the comment `<!-- skip: REASON -->` is not run (it needs what this
  machine cannot have: a real Apple key, a device, Xcode); the run counts it under REASON.
- A fence with no info string is refused, so that no command can go unrun by being unlabelled:
  a block that is not for the shell names its language (`swift`, `json`, `text`, …).

The first file runs from the repository's root. Each file after it starts where the reader who
followed the one before is left: in its trial's directory, .trial/, when there is one (the guides
begin with `cd` to the clone's root, then `make trial` and `cd "$TRIAL"`), so what they make lands
in a fresh .trial/ directory. A file that leaves anything new in the
checkout outside .trial/ fails. `make trial-stop` ends the trial after the last file.
`--self-test` first runs this checker on documents of its own that must pass or fail.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import signal
import subprocess
import sys
import tempfile

SKIP = re.compile(r"^<!--\s*skip:\s*(.+?)\s*-->$")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
ELLIPSIS = "…"


class Block:
    """One fenced block: where it starts, its info string, its text, and its skip reason."""

    def __init__(self, line: int, info: str, text: str, skip: str | None) -> None:
        self.line = line
        self.info = info
        self.text = text
        self.skip = skip
        self.expected: str | None = None


class DocumentError(Exception):
    """A document this checker cannot run as it stands, or whose commands failed."""


def blocks_of(path: str) -> list[Block]:
    """The fenced blocks of a Markdown file, each `output` block attached to the `sh` before it."""
    lines = open(path, encoding="utf-8").read().split("\n")
    found: list[Block] = []
    index = 0
    previous = ""
    while index < len(lines):
        match = FENCE.match(lines[index])
        if not match:
            if lines[index].strip():
                previous = lines[index].strip()
            index += 1
            continue
        indent, fence, info = match.group(1), match.group(2), match.group(3).strip()
        start = index + 1
        index += 1
        body = []
        while index < len(lines) and not lines[index].strip().startswith(fence):
            body.append(lines[index][len(indent):] if lines[index].startswith(indent) else lines[index])
            index += 1
        if index == len(lines):
            raise DocumentError(f"{path}:{start}: a fence that is never closed")
        index += 1
        if not info:
            raise DocumentError(f"{path}:{start}: a fenced block with no info string; name its language (sh to run it)")
        skip = SKIP.match(previous)
        found.append(Block(start, info.split()[0], "\n".join(body), skip.group(1) if skip else None))
        previous = ""
    attached: list[Block] = []
    for block in found:
        if block.info == "output":
            if not attached or attached[-1].info != "sh" or attached[-1].expected is not None:
                raise DocumentError(f"{path}:{block.line}: an output block that follows no sh block")
            attached[-1].expected = block.text
        else:
            attached.append(block)
    return attached


def line_matches(pattern: str, line: str) -> bool:
    parts = [re.escape(part) for part in pattern.split(ELLIPSIS)]
    return re.fullmatch(".*".join(parts), line, re.DOTALL) is not None


def output_matches(expected: str, actual: str) -> bool:
    """Whether `actual` has the lines of `expected`, with `…` matching any text or lines."""
    want = [line.rstrip() for line in expected.rstrip("\n").split("\n")]
    have = [line.rstrip() for line in actual.rstrip("\n").split("\n")] if actual.strip() else []

    def match(i: int, j: int) -> bool:
        if i == len(want):
            return j == len(have)
        if want[i] == ELLIPSIS:
            return any(match(i + 1, k) for k in range(j, len(have) + 1))
        return j < len(have) and line_matches(want[i], have[j]) and match(i + 1, j + 1)

    return match(0, 0)


def untracked(root: str) -> set[str]:
    listing = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all", "--ignored=no"],
        cwd=root, capture_output=True, text=True, check=True,
    ).stdout
    return {line[3:] for line in listing.splitlines() if not line[3:].startswith(".trial/")}


# How long one document's blocks may take together: a block that waits for something that never
# comes (a loop on a state the gateway no longer reaches) fails the run, naming itself, instead of
# holding CI until its own limit.
DOCUMENT_SECONDS = 300


def run_document(
    path: str, root: str, skipped: collections.Counter, seconds: float = DOCUMENT_SECONDS, start: str | None = None
) -> tuple[int, int]:
    """Runs a document's sh blocks from `start` (the root by default), within `seconds`; returns
    how many ran and how many outputs were checked."""
    blocks = [block for block in blocks_of(path) if block.info == "sh"]
    for block in blocks:
        if block.skip:
            skipped[block.skip] += 1
    runnable = [block for block in blocks if not block.skip]
    if not runnable:
        return 0, 0
    before = untracked(root)
    with tempfile.TemporaryDirectory(prefix="run-docs-") as work:
        script = ["set -eo pipefail", f"cd {quote(start or root)}"]
        for number, block in enumerate(runnable):
            out = os.path.join(work, f"{number}.out")
            err = os.path.join(work, f"{number}.err")
            script.append(f"echo {number} > {quote(os.path.join(work, 'current'))}")
            script.append(f"exec > {quote(out)} 2> {quote(err)}")
            script.append(block.text)
        script.append(f"echo done > {quote(os.path.join(work, 'current'))}")
        shell = subprocess.Popen(
            ["bash", "-c", "\n".join(script)], stdin=subprocess.DEVNULL, cwd=root, start_new_session=True)
        try:
            status = shell.wait(timeout=seconds)
            failure = f"the block failed (status {status})"
        except subprocess.TimeoutExpired:
            os.killpg(shell.pid, signal.SIGKILL)
            shell.wait()
            status = None
            failure = f"the document's blocks took longer than {seconds:g} s; this one was running"
        current = open(os.path.join(work, "current")).read().strip()
        if status != 0 or current != "done":
            block = runnable[int(current)]
            raise DocumentError(
                f"{path}:{block.line}: {failure}:\n"
                + indented(block.text, "  $ ")
                + "\nstandard output:\n" + indented(read(work, current, "out"), "  ")
                + "\nstandard error:\n" + indented(read(work, current, "err"), "  ")
            )
        checked = 0
        for number, block in enumerate(runnable):
            if block.expected is None:
                continue
            checked += 1
            actual = read(work, str(number), "out")
            if not output_matches(block.expected, actual):
                raise DocumentError(
                    f"{path}:{block.line}: the output is not what the document shows.\nexpected:\n"
                    + indented(block.expected, "  ") + "\nactual:\n" + indented(actual, "  ")
                    + "\nstandard error:\n" + indented(read(work, str(number), "err"), "  ")
                )
    left = sorted(untracked(root) - before)
    if left:
        raise DocumentError(f"{path}: its commands left files in the checkout, outside .trial/: {', '.join(left)}")
    return len(runnable), checked


def read(work: str, number: str, kind: str) -> str:
    try:
        return open(os.path.join(work, f"{number}.{kind}"), encoding="utf-8", errors="replace").read()
    except FileNotFoundError:
        return ""


def indented(text: str, prefix: str) -> str:
    return "\n".join(prefix + line for line in text.rstrip("\n").split("\n")) if text.strip() else prefix + "(nothing)"


def quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


SELF_TESTS = {
    "passes": ("```sh\nA=1\necho one\n```\n\n```output\none\n```\n\n<!-- skip: needs a phone -->\n```sh\nexit 1\n```\n\n"
               "```sh\necho \"$A\"; printf 'x\\ny\\nz\\n'\n```\n```output\n1\n…\nz\n```\n\n```json\n{}\n```\n", None),
    "a failing command": ("```sh\necho fine\n```\n\n```sh\nfalse\necho never\n```\n", "the block failed"),
    "other output": ("```sh\necho two\n```\n```output\none\n```\n", "the output is not what the document shows"),
    "an unlabelled fence": ("```\nrm -rf /\n```\n", "no info string"),
    "a stray output block": ("```json\n{}\n```\n```output\n{}\n```\n", "follows no sh block"),
    "a block that never ends": ("```sh\nwhile true; do sleep 0.1; done\n```\n", "took longer than"),
}

# The self-test's documents get this long, so that the one that never ends fails at once.
SELF_TEST_SECONDS = 3


def self_test(root: str) -> None:
    """Runs the checker on documents of its own: one that must pass, and five that must fail
    with their own message. A checker that passed everything would fail here."""
    with tempfile.TemporaryDirectory(prefix="run-docs-self-test-") as directory:
        for name, (text, expected_error) in SELF_TESTS.items():
            path = os.path.join(directory, name.replace(" ", "-") + ".md")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
            skipped: collections.Counter = collections.Counter()
            try:
                run_document(path, root, skipped, seconds=SELF_TEST_SECONDS)
                error = None
            except DocumentError as failure:
                error = str(failure)
            if expected_error is None and (error is not None or skipped != {"needs a phone": 1}):
                sys.exit(f"run-docs self-test: {name}: should pass with one skip, got {error or dict(skipped)}")
            if expected_error is not None and (error is None or expected_error not in error):
                sys.exit(f"run-docs self-test: {name}: should fail with {expected_error!r}, got {error!r}")
    print(f"run-docs: self-test passed ({len(SELF_TESTS)} documents)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("documents", nargs="*")
    arguments = parser.parse_args()
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True).stdout.strip()
    os.chdir(root)
    if arguments.self_test:
        self_test(root)
    skipped: collections.Counter = collections.Counter()
    try:
        for index, document in enumerate(arguments.documents):
            # Where the previous document left its reader: in its trial, if it made one.
            trial = os.path.join(root, ".trial")
            start = trial if index > 0 and os.path.isdir(trial) else root
            ran, checked = run_document(document, root, skipped, start=start)
            print(f"run-docs: {document}: {ran} blocks run, {checked} outputs checked")
    except DocumentError as failure:
        sys.exit(f"run-docs: {failure}")
    finally:
        if arguments.documents:
            subprocess.run(["make", "--no-print-directory", "trial-stop"], cwd=root, check=False)
    total = sum(skipped.values())
    print(f"run-docs: {total} blocks skipped" + (":" if total else ""))
    for reason, count in sorted(skipped.items()):
        print(f"  {count} {reason}")


if __name__ == "__main__":
    main()
