#!/usr/bin/env python3
"""The figures and tables of each paper that docs/reproduction.md names.

usage: reproduction_items.py [docs/reproduction.md]   prints PAPER: item, item, ...

Sections start at "## NNN:"; within one, every "Fig N", "Figs N-M", "Figs A, B-C and D",
"Figs 8/9", "Table II", "Tables III and IV", "Tables II-IV" is expanded to single items
("Fig 8", "Table III"). tests/figure_pages_test.py checks that the page manifest of each paper
(scripts/figures/pages/NNN.json) covers every item named here.
"""
import re
import sys

ROMAN = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"]
NUMBER = r"(?:\d+|[IVX]+)"
LIST = NUMBER + r"(?:\s*(?:-|/|,|and)\s*" + NUMBER + r")*"
ITEM = re.compile(r"\b(Figs?|Tables?)\.?\s+(" + LIST + r")\b")


def expand(kind, text):
    kind = "Fig" if kind.startswith("Fig") else "Table"
    out = []
    for part in re.split(r"\s*(?:,|and|/)\s*", text):
        if not part:
            continue
        ends = [p.strip() for p in part.split("-")]
        if len(ends) == 2:
            a, b = ends
            if a.isdigit() and b.isdigit():
                out += ["%s %d" % (kind, n) for n in range(int(a), int(b) + 1)]
            elif a in ROMAN and b in ROMAN:
                out += ["%s %s" % (kind, r) for r in ROMAN[ROMAN.index(a):ROMAN.index(b) + 1]]
        elif ends[0].isdigit() or ends[0] in ROMAN:
            out.append("%s %s" % (kind, ends[0]))
    return out


def items(path):
    """{paper: [items in the order of first mention]}."""
    sections, paper = {}, None
    for line in open(path):
        m = re.match(r"^## (\d{3}):", line)
        if m:
            paper = m.group(1)
            sections[paper] = []
            continue
        if line.startswith("## "):
            paper = None
        if paper is None:
            continue
        for kind, text in ITEM.findall(line):
            for item in expand(kind, text):
                if item not in sections[paper]:
                    sections[paper].append(item)
    return sections


if __name__ == "__main__":
    for paper, names in items(sys.argv[1] if len(sys.argv) > 1 else "docs/reproduction.md").items():
        print("%s: %s" % (paper, ", ".join(names)))
