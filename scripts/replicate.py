#!/usr/bin/env python3
"""Writes a task graph made of copies of an example (examples/graphs), for
benchmarks of the planner on graphs larger than the examples
(docs/benchmarks.md, "planner: replicated examples").

usage: scripts/replicate.py FAMILY N [BUDGET] > graph.json

  layers N B   transformer_layer.json N times, layer i's invocations named
               l<i>_<id>; layer i's add2.s feeds layer i+1's norm1.x and
               add1.r (the residual stream: layer 0 loads it, the last layer
               stores it). B > 0: each layer's four kernels (split where the
               example's edges must cross) are groups of B bytes of shared
               memory; B = 0: no groups, and the edges between layers must
               cross as the example's add1.s edges do; B = -1: no groups, and
               the edges between layers may stay in a kernel.
  layers-mega N B
               as layers N -1, each whole layer one group of B bytes (its
               edges that must cross then may not).
  gqa N B      attention.json as N heads, one load_k and load_v for every 4
               heads (a fan-out of 4); B > 0: each head a group of B bytes.
  moe N B      gated_mlp.json as N experts fed by one load_x (a fan-out of
               2N); B > 0: each expert a group of B bytes.
  moe-mega N B as moe N 0, every invocation in one group of B bytes.
  gemms N [B]  smem_budget.json N times, unconnected, each with its group (of
               B bytes, where given).
"""
import copy
import json
import os
import sys

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "graphs")


def load(name):
    with open(os.path.join(EXAMPLES, name + ".json")) as f:
        return json.load(f)


def inv(port):
    return port.split(".")[0]


def renamed(port, name):
    i, p = port.split(".", 1)
    return name(i) + "." + p


def layers(n, budget):
    g = load("transformer_layer")
    kernels = [["load_h", "norm1", "load_wqkv", "qkv_proj"],
               ["attention", "load_wo", "o_proj", "load_r", "add1"],
               ["norm2", "load_wup", "up_proj", "gelu"],
               ["load_wdown", "down_proj", "add2", "store_h"]]
    invs, edges, groups = [], [], []
    for i in range(n):
        name = lambda x, i=i: f"l{i}_{x}"
        skip = set()
        if i > 0:
            skip |= {"load_h", "load_r"}
        if i < n - 1:
            skip.add("store_h")
        for v in g["invocations"]:
            if v["id"] not in skip:
                w = copy.deepcopy(v)
                w["id"] = name(v["id"])
                invs.append(w)
        for e in g["edges"]:
            if inv(e["from"]) in skip or inv(e["to"]) in skip:
                continue
            w = copy.deepcopy(e)
            w["from"], w["to"] = renamed(e["from"], name), renamed(e["to"], name)
            edges.append(w)
        if i > 0:
            prev = f"l{i-1}_add2.s"
            stream = {"from": prev, "to": name("norm1") + ".x", "rename": {"n": "k"}}
            residual = {"from": prev, "to": name("add1") + ".r"}
            if budget == 0:
                stream["kernel"] = residual["kernel"] = "must_cross"
            edges += [stream, residual]
        if budget > 0:
            for k, ks in enumerate(kernels):
                groups.append({"id": f"l{i}_k{k}", "invocations": [name(x) for x in ks if x not in skip],
                               "shared_memory_bytes": budget})
    g["invocations"], g["edges"] = invs, edges
    if groups:
        g["groups"] = groups
    g["name"] = f"transformer-layers-{n}"
    return g


def gqa(n, budget):
    g = load("attention")
    shared = ("load_k", "load_v")
    invs, edges, groups = [], [], []
    for i in range(n):
        kv = i // 4
        name = lambda x, i=i, kv=kv: f"kv{kv}_{x}" if x in shared else f"h{i}_{x}"
        if i % 4 == 0:
            invs += [{"id": name("load_k"), "task": "load_kt"}, {"id": name("load_v"), "task": "load_v"}]
        for v in g["invocations"]:
            if v["id"] not in shared:
                w = copy.deepcopy(v)
                w["id"] = name(v["id"])
                invs.append(w)
        for e in g["edges"]:
            w = copy.deepcopy(e)
            w["from"], w["to"] = renamed(e["from"], name), renamed(e["to"], name)
            edges.append(w)
        if budget > 0:
            groups.append({"id": f"head{i}", "invocations": [name(v["id"]) for v in g["invocations"] if v["id"] not in shared],
                           "shared_memory_bytes": budget})
    g["invocations"], g["edges"] = invs, edges
    if groups:
        g["groups"] = groups
    g["name"] = f"gqa-{n}"
    return g


def moe(n, budget):
    g = load("gated_mlp")
    invs, edges, groups = [{"id": "load_x", "task": "load_x"}], [], []
    for i in range(n):
        name = lambda x, i=i: x if x == "load_x" else f"e{i}_{x}"
        for v in g["invocations"]:
            if v["id"] != "load_x":
                w = copy.deepcopy(v)
                w["id"] = name(v["id"])
                invs.append(w)
        for e in g["edges"]:
            w = copy.deepcopy(e)
            w["from"], w["to"] = renamed(e["from"], name), renamed(e["to"], name)
            edges.append(w)
        if budget > 0:
            groups.append({"id": f"expert{i}", "invocations": [name(v["id"]) for v in g["invocations"] if v["id"] != "load_x"],
                           "shared_memory_bytes": budget})
    g["invocations"], g["edges"] = invs, edges
    if groups:
        g["groups"] = groups
    g["name"] = f"moe-{n}"
    return g


def gemms(n, budget):
    g = load("smem_budget")
    invs, edges, groups = [], [], []
    for i in range(n):
        name = lambda x, i=i: f"g{i}_{x}"
        for v in g["invocations"]:
            w = copy.deepcopy(v)
            w["id"] = name(v["id"])
            invs.append(w)
        for e in g["edges"]:
            w = copy.deepcopy(e)
            w["from"], w["to"] = renamed(e["from"], name), renamed(e["to"], name)
            edges.append(w)
        for gr in g["groups"]:
            w = copy.deepcopy(gr)
            w["id"], w["invocations"] = name(gr["id"]), [name(x) for x in gr["invocations"]]
            if budget > 0:
                w["shared_memory_bytes"] = budget
            groups.append(w)
    g["invocations"], g["edges"], g["groups"] = invs, edges, groups
    g["name"] = f"gemms-{n}"
    return g


def mega(g, budget, by):
    """Puts the invocations into one group per by(id), of budget bytes; the
    edges inside a group no longer must cross."""
    members = {}
    for v in g["invocations"]:
        members.setdefault(by(v["id"]), []).append(v["id"])
    g["groups"] = [{"id": k + "_mega", "invocations": m, "shared_memory_bytes": budget} for k, m in members.items()]
    for e in g["edges"]:
        if by(inv(e["from"])) == by(inv(e["to"])):
            e.pop("kernel", None)
    return g


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    fam, n = sys.argv[1], int(sys.argv[2])
    budget = int(sys.argv[3]) if len(sys.argv) == 4 else 0
    if fam == "layers":
        g = layers(n, budget)
    elif fam == "layers-mega":
        g = mega(layers(n, -1), budget, lambda i: i.split("_")[0])
    elif fam == "gqa":
        g = gqa(n, budget)
    elif fam == "moe":
        g = moe(n, budget)
    elif fam == "moe-mega":
        g = mega(moe(n, 0), budget, lambda i: "all")
    elif fam == "gemms":
        g = gemms(n, budget)
    else:
        sys.exit(__doc__)
    json.dump(g, sys.stdout)


if __name__ == "__main__":
    main()
