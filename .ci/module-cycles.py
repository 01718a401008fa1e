#!/usr/bin/env python3
"""Fails when a crate's modules import each other in a cycle.

For every directory module (and the crate root) it builds the graph of sibling modules:
an edge m -> n when a file of m names `super::n`, `crate::<path>::n`, or an item that the
parent re-exports from n (`pub use n::Item` in mod.rs/lib.rs, reached as `super::Item`
or `crate::Item`). Test modules (`#[cfg(test)]` onwards) and comments are ignored.
Usage: module-cycles.py CRATE_DIR...
"""
import os
import re
import sys


def strip(text):
    return re.sub(r"//.*", "", text.split("#[cfg(test)]")[0])


def reexports(parent_file, mods):
    """Item name -> sibling module it is re-exported from."""
    names = {}
    if not os.path.exists(parent_file):
        return names
    text = strip(open(parent_file).read())
    for module, body in re.findall(r"pub(?:\(crate\))?\s+use\s+(?:self::)?([a-z_0-9]+)::(\{[^}]*\}|[A-Za-z_0-9]+)", text, re.S):
        if module in mods:
            for name in re.findall(r"[A-Za-z_][A-Za-z_0-9]*", body):
                names[name] = module
    return names


def cycles(graph):
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in list(graph):
        if v not in index:
            visit(v)
    return found


def check(crate):
    src = os.path.join(crate, "src")
    problems = []
    for directory, subdirs, files in os.walk(src):
        mods = {f[:-3] for f in files if f.endswith(".rs") and f not in ("mod.rs", "lib.rs", "main.rs")}
        mods |= {d for d in subdirs if os.path.exists(os.path.join(directory, d, "mod.rs")) or os.path.exists(os.path.join(directory, d + ".rs"))}
        if len(mods) < 2:
            continue
        rel = os.path.relpath(directory, src)
        at_root = rel == "."
        path = "" if at_root else rel.replace(os.sep, "::")
        parent = os.path.join(directory, "lib.rs" if at_root else "mod.rs")
        if not at_root and not os.path.exists(parent):
            parent = directory + ".rs"
        items = reexports(parent, mods)
        graph = {}
        for m in mods:
            sources = []
            if os.path.exists(os.path.join(directory, m + ".rs")):
                sources.append((os.path.join(directory, m + ".rs"), True))
            if os.path.isdir(os.path.join(directory, m)):
                for d, _, fs in os.walk(os.path.join(directory, m)):
                    for f in fs:
                        if f.endswith(".rs"):
                            own = d == os.path.join(directory, m) and f == "mod.rs"
                            sources.append((os.path.join(d, f), own))
            edges = graph.setdefault(m, set())
            for file, direct in sources:
                text = strip(open(file).read())
                crate_prefix = "crate::" if at_root else "crate::" + path + "::"
                prefixes = [re.escape(crate_prefix)] + (["super::"] if direct else [])
                for prefix in prefixes:
                    for name in re.findall(prefix + r"([A-Za-z_][A-Za-z_0-9]*)", text):
                        target = name if name in mods else items.get(name)
                        if target and target != m:
                            edges.add(target)
                    for group in re.findall(prefix + r"\{([^}]*)\}", text, re.S):
                        for name in re.findall(r"(?:^|[,{\s])([A-Za-z_][A-Za-z_0-9]*)", group):
                            target = name if name in mods else items.get(name)
                            if target and target != m:
                                edges.add(target)
        for cycle in cycles(graph):
            problems.append(f"{directory}: {' <-> '.join(cycle)}")
    return problems


if __name__ == "__main__":
    problems = [p for crate in sys.argv[1:] for p in check(crate)]
    for p in problems:
        print("module cycle:", p)
    sys.exit(1 if problems else 0)
