#!/usr/bin/env python3
"""Numbers docs/ quotes from the reproduction pages agree with the generated pages.

usage: check_docs_numbers.py [--pages DIR] [--docs DIR] [--manifests DIR]
  --pages DIR      the generated pages, DIR/PAPER/page.json (`mbbench figures PAPER` writes
                   results/figures/PAPER/page.json); without it only the markers are checked
                   against the manifests (every marker names an existing entry and measurement)
  --docs DIR       the Markdown to scan, recursively (default: the source tree's docs/)
  --manifests DIR  the page manifests (default: scripts/figures/pages)

A number in the docs that comes from a page carries a marker right after it, on the same
line, naming the paper, the page entry and the measurement's label:

    constrained 1.63e4<!-- page 002 "Table II" "constrained scheme, dt = 5e-2" -->

The quoted number is the last number between the previous marker (or the line's start) and
this one. `... "LABEL" paper -->` compares it with the first number of the measurement's
`paper` text instead of our value. In a Markdown table row a "|" of ENTRY or LABEL is
written "\\|" (the table's escape). A quote agrees when the page's value, rounded to the
quote's last printed digit, gives the quote: |quoted - value| <= half a unit of that digit
("1.63e4": 50, "0.2444": 5e-5, "480": 0.5). Exit 1 naming FILE:LINE, the quoted and the
page's value for every disagreement, unresolved marker or missing page; 0 otherwise.
"""
import argparse
import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.path.join(HERE, "..", ".."))
MARKER = re.compile(r'<!--\s*page\s+(\d{3})\s+"([^"]+)"\s+"([^"]+)"\s*(ours|paper)?\s*-->')
CODE = re.compile(r"`[^`]*`")
# A number not glued to a word ("L_3", "fig23"); "480-492" is 480 and 492, not -492.
NUMBER = re.compile(r"(?<![\w.])(?:[-+](?=[\d.]))?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def markers(path):
    """(line number, quoted text or None, paper, entry id, label, field) of each marker."""
    found = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            # Code spans are examples, not quotes: blank them (keeping the positions).
            line = CODE.sub(lambda c: " " * len(c.group(0)), line)
            start = 0
            for m in MARKER.finditer(line):
                numbers = NUMBER.findall(line[start:m.start()])
                found.append((lineno, numbers[-1] if numbers else None, m.group(1),
                              m.group(2).replace("\\|", "|"), m.group(3).replace("\\|", "|"),
                              m.group(4) or "ours"))
                start = m.end()
    return found


def half_unit(text):
    """Half a unit of the quote's last printed digit: "1.63e4" -> 50, "0.2444" -> 5e-5."""
    mantissa, _, exponent = text.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 0.5 * 10.0 ** ((int(exponent) if exponent else 0) - decimals)


def agrees(quoted, value):
    q = float(quoted)
    # 1e-9 relative: a value exactly on the rounding boundary is printed either way.
    return abs(q - value) <= half_unit(quoted) * (1 + 1e-9) + 1e-12 * abs(value)


def first_number(text):
    m = NUMBER.search(str(text))
    return float(m.group(0)) if m else None


def find_measure(entries, entry_id, label):
    for e in entries:
        if e["id"] == entry_id:
            for m in e.get("measures", []):
                if m["label"] == label:
                    return m
            return None
    return None


def check_file(path, rel, manifests, pages_dir, pages, problems):
    count = 0
    for lineno, quoted, paper, entry_id, label, field in markers(path):
        count += 1
        where = "%s:%d" % (rel, lineno)
        manifest = manifests.get(paper)
        if manifest is None or find_measure(manifest["entries"], entry_id, label) is None:
            problems.append('%s: marker names no measurement of manifest %s: "%s" "%s"'
                            % (where, paper, entry_id, label))
            continue
        if quoted is None:
            problems.append('%s: no number before the marker "%s" "%s"' % (where, entry_id, label))
            continue
        if pages_dir is None:
            continue
        if paper not in pages:
            path_json = os.path.join(pages_dir, paper, "page.json")
            pages[paper] = json.load(open(path_json)) if os.path.exists(path_json) else None
        if pages[paper] is None:
            problems.append("%s: quotes page %s, but %s/%s/page.json was not generated"
                            % (where, paper, pages_dir, paper))
            continue
        measure = find_measure(pages[paper]["entries"], entry_id, label)
        if measure is None:
            problems.append('%s: page %s has no measurement "%s" "%s" (regenerate it)'
                            % (where, paper, entry_id, label))
            continue
        value = first_number(measure["paper"]) if field == "paper" else measure.get("value")
        if not isinstance(value, (int, float)) or isinstance(value, bool) or math.isnan(value):
            problems.append('%s: "%s" "%s": the page\'s %s value is %r, not a number'
                            % (where, entry_id, label, field, value))
        elif not agrees(quoted, value):
            problems.append('%s: quotes %s for "%s" "%s" (%s), the page %s has %.6g'
                            % (where, quoted, entry_id, label, field, paper, value))
    return count


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages")
    parser.add_argument("--docs", default=os.path.join(SRC, "docs"))
    parser.add_argument("--manifests", default=os.path.join(HERE, "pages"))
    args = parser.parse_args(argv[1:])
    manifests = {}
    for name in sorted(os.listdir(args.manifests)):
        if name.endswith(".json"):
            with open(os.path.join(args.manifests, name)) as f:
                manifests[name[:-5]] = json.load(f)
    problems, pages, count = [], {}, 0
    for root, _, files in sorted(os.walk(args.docs)):
        for name in sorted(files):
            if name.endswith(".md"):
                path = os.path.join(root, name)
                rel = os.path.relpath(path, os.path.dirname(os.path.abspath(args.docs)))
                count += check_file(path, rel, manifests, args.pages, pages, problems)
    for p in problems:
        print(p)
    what = "against the pages in %s" % args.pages if args.pages else "against the manifests " \
        "(markers only; give --pages to compare the values)"
    print("check_docs_numbers.py: %d quoted numbers checked %s: %s" % (
        count, what, "%d problems" % len(problems) if problems else "all agree"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
