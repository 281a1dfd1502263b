#!/usr/bin/env python3
"""The include graphs of harness/ and problems/, drawn as layers; fails on a circle or an
upward include.

A module is a header and its source file (runner.h + runner.cc = runner): module A depends
on module B when a file of A includes "harness/B.h". A circle of modules (runner.cc includes
reference_maker.h, reference_maker.cc includes runner.h) is a tower that cannot be read
from the bottom up, so it is refused. The layers: a module with no harness dependency is on
layer 0, any other one layer above the highest of its dependencies; an include therefore
always points down.

problems/ is three folders, each a layer: core/ (the DAE contract, automatic differentiation,
linear algebra), model/ (the model description, formulations, joint tree) and catalogue/; a
file may include only its own folder and those below it, and nothing in problems/ includes
harness/, methods/, reference/ or conformance/. Within problems/ the modules (header and
source of one stem, with its folder; a NAME_internal.h belongs to module NAME, whose
sources share it) must have no circle either.
Usage: include_graph.py [ROOT] | --self-test   (ROOT: the source tree, default: the parent of scripts/)
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


PROBLEM_LAYERS = ("core", "model", "catalogue")
ANY_INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_/]+)\.h"', re.MULTILINE)


def module_stem(stem):
    return stem[: -len("_internal")] if stem.endswith("_internal") else stem


def problems_violations(root):
    """(upward includes as messages, the module graph of problems/)."""
    messages, graph = [], {}
    base = os.path.join(root, "problems")
    for folder, _, names in sorted(os.walk(base)):
        rel = os.path.relpath(folder, base)
        for name in sorted(names):
            stem, ext = os.path.splitext(name)
            if ext not in (".h", ".cc"):
                continue
            if rel not in PROBLEM_LAYERS:
                messages.append(f"problems/{os.path.join(rel, name)}: outside core/, model/, "
                                "catalogue/")
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                text = f.read()
            module = f"{rel}/{module_stem(stem)}"
            deps = graph.setdefault(module, set())
            for inc in ANY_INCLUDE.findall(text):
                top = inc.split("/")[0]
                if top in ("harness", "methods", "reference", "conformance"):
                    messages.append(f"problems/{rel}/{name} includes {inc}.h: problems/ "
                                    "depends on nothing above it")
                if top != "problems":
                    continue
                parts = inc.split("/")
                if len(parts) != 3 or parts[1] not in PROBLEM_LAYERS:
                    messages.append(f"problems/{rel}/{name} includes {inc}.h: not in a layer")
                    continue
                if PROBLEM_LAYERS.index(parts[1]) > PROBLEM_LAYERS.index(rel):
                    messages.append(f"problems/{rel}/{name} includes {inc}.h: an upward include "
                                    f"({rel}/ is below {parts[1]}/)")
                dep = f"{parts[1]}/{module_stem(parts[2])}"
                if dep != module:
                    deps.add(dep)
    for deps in list(graph.values()):
        for d in deps:
            graph.setdefault(d, set())
    return messages, graph


def self_test():
    """A tree with one upward include, one include of harness/ and one circle in problems/:
    each must be named (the check can fail)."""
    import tempfile
    files = {
        "harness/a.h": "",
        "problems/core/low.h": '#include "problems/model/high.h"\n',
        "problems/model/high.h": '#include "harness/a.h"\n',
        "problems/model/p.h": '#include "problems/model/q.h"\n',
        "problems/model/q.cc": '#include "problems/model/p.h"\n',
    }
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        messages, graph = problems_violations(root)
        circle = find_circle(graph)
    expected = ["an upward include", "depends on nothing above it"]
    ok = all(any(e in m for m in messages) for e in expected) and circle is not None
    print("self-test " + ("passed" if ok else "FAILED") + ": " + "; ".join(messages) +
          f"; circle {circle}")
    return 0 if ok else 1


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
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
    messages, problem_graph = problems_violations(root)
    circle = find_circle(problem_graph)
    if circle:
        messages.append("include circle in problems/: " + " -> ".join(circle))
    for message in messages:
        print(message)
    if messages:
        return 1
    print(f"problems/: {len(problem_graph)} modules in core/, model/, catalogue/; every include "
          "points down, no circle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
