#!/usr/bin/env python3
"""The include graph of harness/, drawn as layers; fails on a circle.

A module is a header and its source file (runner.h + runner.cc = runner): module A depends
on module B when a file of A includes "harness/B.h". A circle of modules (runner.cc includes
reference_maker.h, reference_maker.cc includes runner.h) is a tower that cannot be read
from the bottom up, so it is refused. The layers: a module with no harness dependency is on
layer 0, any other one layer above the highest of its dependencies; an include therefore
always points down.

Usage: include_graph.py [ROOT]   (ROOT: the source tree, default: the parent of scripts/)
Prints the layers, each module with what it includes; exit 1 and the circle on a circle.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"harness/([A-Za-z0-9_]+)\.h"', re.MULTILINE)


def read_graph(harness_dir):
    graph = {}
    for name in sorted(os.listdir(harness_dir)):
        stem, ext = os.path.splitext(name)
        if ext not in (".h", ".cc"):
            continue
        with open(os.path.join(harness_dir, name), encoding="utf-8") as f:
            text = f.read()
        deps = graph.setdefault(stem, set())
        deps.update(d for d in INCLUDE.findall(text) if d != stem)
    for deps in list(graph.values()):
        for d in deps:
            graph.setdefault(d, set())  # a header without a source file of that name
    return graph


def find_circle(graph):
    """A list of modules forming a circle (first repeated at the end), or None."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = {m: WHITE for m in graph}
    stack = []

    def visit(m):
        colour[m] = GREY
        stack.append(m)
        for d in sorted(graph[m]):
            if colour[d] == GREY:
                return stack[stack.index(d):] + [d]
            if colour[d] == WHITE:
                found = visit(d)
                if found:
                    return found
        stack.pop()
        colour[m] = BLACK
        return None

    for m in sorted(graph):
        if colour[m] == WHITE:
            found = visit(m)
            if found:
                return found
    return None


def layers(graph):
    layer = {}

    def of(m):
        if m not in layer:
            layer[m] = 1 + max((of(d) for d in graph[m]), default=-1)
        return layer[m]

    for m in graph:
        of(m)
    return layer


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))
    graph = read_graph(os.path.join(root, "harness"))
    circle = find_circle(graph)
    if circle:
        print("include circle in harness/: " + " -> ".join(circle))
        return 1
    layer = layers(graph)
    for k in range(max(layer.values()) + 1):
        print(f"layer {k}:")
        for m in sorted(x for x in graph if layer[x] == k):
            deps = ", ".join(sorted(graph[m]))
            print(f"  {m}" + (f"  <- {deps}" if deps else ""))
    print(f"{len(graph)} modules, {max(layer.values()) + 1} layers, no circle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
