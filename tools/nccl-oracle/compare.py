#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare gdrlab's NCCL estimates and choices with NCCL's own tuning.cc.

For each case (release, topology, nodes, collective) gdrlab's `busbw --json`
gives the graphs it searched and, per size, its choice and NCCL's estimate
of it (`nccl_estimate_us`). The same graphs are fed to the oracle built from
that release's unmodified tuning.cc (oracle.cc, oracle30.cc), and:

- every algorithm and protocol gdrlab can be forced to (--algo, --proto) is
  compared with ncclTopoGetAlgoTime, size by size (relative difference);
- gdrlab's default choice is compared with NCCL's own selection
  (enqueue.cc, transcribed in nccl_pick) over the oracle's times;
- a forced choice gdrlab refuses is checked to be one NCCL's table lacks
  too. NCCL then falls back (to Ring, for instance) where gdrlab stops with
  the reason: counted, reported, not a failure.

Run by run.sh; standard library only. Exit status: 0 all agree, 1 a
difference (see the summary), 2 bad usage.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

TAGS = {"2.8.4": "v2.8.4-1", "2.12.12": "v2.12.12-1", "2.19.3": "v2.19.3-1",
        "2.21.5": "v2.21.5-1", "2.30.7": "v2.30.7-1"}
# gdrlab's --algo names per release, and NCCL's name for each (init.cc's ncclAlgoStr)
ALGOS = {"2.8.4": ["tree", "ring"], "2.12.12": ["tree", "ring"],
         "2.19.3": ["tree", "ring", "collnetdirect", "collnetchain", "nvls", "nvlstree"],
         "2.21.5": ["tree", "ring", "collnetdirect", "collnetchain", "nvls", "nvlstree"],
         "2.30.7": ["tree", "ring", "collnetdirect", "collnetchain", "nvls", "nvlstree", "pat"]}
NCCL_ALGO = {"tree": "Tree", "ring": "Ring", "collnetdirect": "CollNetDirect",
             "collnetchain": "CollNetChain", "nvls": "NVLS", "nvlstree": "NVLSTree", "pat": "PAT"}
PROTOS = ["LL", "LL128", "Simple"]
FUNC = {"broadcast": 0, "reduce": 1, "allgather": 2, "reducescatter": 3, "allreduce": 4}
CC = {"volta": 70, "ampere": 80, "hopper": 90, "blackwell": 100}
CHOICE_TOL = 1e-4  # a default choice whose time is further off than this is another candidate

A100, H100 = "configs/a100-pcie4-200g.yaml", "configs/h100-pcie5-400g.yaml"
ABCI, DGX1 = "configs/validation/abci-v100-2xedr.yaml", "configs/validation/dgx1-v100-4xedr.yaml"


def cases(ver, quick):
    """(topology, nodes, op, extra gdrlab flags): the cases of docs/validation.md,
    section "NCCL's own cost model, compiled" (205 over the five releases)."""
    if quick:  # one node (the engine's tree graph) and two nodes of Hopper (NVLS tree, network)
        return [(A100, 1, "allreduce", ()), (H100, 2, "allreduce", ())]
    out = []
    for topo, nodes in [(A100, [1, 2, 4]), (ABCI, [2, 8]), ("tests/data/volta-nics-at-cpu.yaml", [2]),
                        (H100, [1, 2, 4]), (DGX1, [2])]:
        out += [(topo, n, "allreduce", ()) for n in nodes]
    for op in ["allgather", "broadcast"]:
        for topo, nodes in [(A100, [1, 2]), (H100, [1, 2, 4]), (ABCI, [2]), (DGX1, [2])]:
            out += [(topo, n, op, ()) for n in nodes]
    out += [(A100, 2, "allreduce", ("-p", "staged")),
            ("configs/validation/a100-1gpu-hdr.yaml", 2, "allreduce", ()),
            ("configs/validation/a100-1gpu-hdr.yaml", 4, "allreduce", ()),
            ("tests/data/pxn-two-gpus.yaml", 2, "allreduce", ()),
            ("configs/validation/dgx-a100-8x200g.yaml", 2, "allreduce", ())]
    out += [(topo, n, "reducescatter", ()) for topo, n in [(A100, 2), (H100, 1), (H100, 2), (ABCI, 2)]]
    if ver == "2.30.7":  # Blackwell, NVLS, PAT, C2C: only the newest release has them all
        every = ["allreduce", "allgather", "reducescatter", "broadcast"]
        for topo, nodes in [("tests/data/b200-nvls.yaml", [1, 2, 4]),
                            ("configs/validation/h100-nic-per-gpu.yaml", [3]),
                            ("configs/gh200-grace-hopper.yaml", [2, 4]),
                            ("tests/data/round-numbers.yaml", [2, 3, 4, 8])]:
            out += [(topo, n, op, ()) for n in nodes for op in every]
    return out


class Run:
    def __init__(self, a):
        self.a = a
        # The oracle must see NCCL's defaults: no NCCL_* from the caller's environment.
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("NCCL_")}

    def gdrlab(self, topo, nodes, ver, op, extra, algo=None, proto=None):
        cmd = [self.a.gdrlab, "busbw", "-t", topo, "-n", str(nodes), "--nccl", ver, "-b", "8", "-e", "8G",
               "-f", str(self.a.factor), "--op", op, "--json", "-", "-q", *extra]
        if algo:
            cmd += ["--algo", algo, "--proto", proto]
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=self.a.repo)
        if r.returncode != 0:
            lines = (r.stderr or r.stdout or "exit %d" % r.returncode).strip().splitlines()
            return None, lines[-1] if lines else "exit %d" % r.returncode
        return json.loads(r.stdout), None

    def engine(self, d):
        """engine_graphs.c: the GPU/CPU kind and the ring and tree graphs, searched as busbw did."""
        pxn = d["pxn"] and not d["path"].startswith("staged")  # plan.h plan_uses_pxn
        r = subprocess.run([self.a.engine_graphs, d["topology_file"], d["nccl"], str(d["nodes"]),
                            d["gdr_level"], "1" if pxn else "0"],
                           capture_output=True, text=True, cwd=self.a.repo)
        if r.returncode != 0:
            raise RuntimeError("engine-graphs: " + r.stderr.strip())
        out = {}
        for line in r.stdout.splitlines():
            f = line.split()
            if f[0] in ("arch", "vendor"):
                out[f[0]] = f[1]
            else:
                out[f[0]] = {"channels": int(f[1]), "bw_intra_gbps": float(f[2]), "bw_inter_gbps": float(f[3]),
                             "intra": "NVL" if f[4] == "1" else "PCI", "inter": f[5], "pxn": f[6] == "1",
                             "pattern": f[7]}
        return out

    def oracle(self, ver, spec, algo=None, proto=None):
        """{(algo, proto, size): (time, backup)} from ncclTopoGetAlgoTime; with
        algo/proto, under NCCL_ALGO/NCCL_PROTO, which tuning.cc parses itself."""
        env = dict(self.env)
        if algo:
            # 2.8/2.12 name CollNet without Direct/Chain (init.cc ncclAlgoStr)
            env["NCCL_ALGO"] = "CollNet" if ver in ("2.8.4", "2.12.12") and algo.startswith("CollNet") else algo
            env["NCCL_PROTO"] = proto
        exe = os.path.join(self.a.oracles, "oracle-" + TAGS[ver])
        r = subprocess.run([exe], input=spec, capture_output=True, text=True, env=env)
        if r.returncode != 0:
            raise RuntimeError("oracle-%s: %s" % (TAGS[ver], r.stderr.strip()))
        est = {}
        for line in r.stdout.splitlines():
            f = line.split()
            if f[0] == "est":
                t, backup = float(f[4]), f[5] == "1"
                est[(f[1], f[2], int(f[3]))] = (t, backup)
        return est


def oracle_spec(d, eng, op):
    """The oracle's input (oracle.cc's header) from gdrlab's JSON and engine-graphs."""
    g, ppn = d["graphs"], d["gpus_per_node"]
    cc = CC[eng["arch"]]
    # ncclTopoCpuType: x86 with its vendor; ARM keeps NCCL_TOPO_UNDEF (names.h)
    arch, vendor = ("ARM", "UNDEF") if eng["vendor"] == "arm" else ("X86", eng["vendor"].upper())
    lines = ["nranks %d" % d["ranks"], "nnodes %d" % d["nodes"], "mincc %d" % cc, "maxcc %d" % cc,
             "arch " + arch, "vendor " + vendor, "commch %d" % g["comm_channels"], "collnet 0",
             "coll %d" % FUNC[op]]

    def graph(kind, gg, pattern):
        # tuning.cc tests typeIntra only against LINK_NVL and PATH_NVB (v2.21.5-1 :154, :309), so PIX
        # stands for every PCI class; one GPU a node is PATH_LOC and, on one node, typeInter stays the
        # PATH_PIX the search starts from (search.cc:975-981).
        intra = "NVL" if gg["intra"] == "NVL" else ("LOC" if ppn == 1 else "PIX")
        inter = "PXN" if gg["pxn"] else (gg["inter"] if d["nodes"] > 1 else "PIX")
        # sameChannels=1: NCCL's first search try, the graph gdrlab models
        return "graph %s %d %.9g %.9g %s %s %s 1" % (kind, gg["channels"], gg["bw_intra_gbps"],
                                                   gg["bw_inter_gbps"], intra, inter, pattern)
    lines.append(graph("ring", g["ring"], "RING"))
    tree = g["tree"] or eng["tree"]  # null in the JSON on one node
    lines.append(graph("tree", tree, tree["pattern"]))
    if g.get("nvls"):
        lines.append(graph("nvls", g["nvls"], "NVLS"))
    lines.append("sizes " + " ".join(str(r["size"]) for r in d["rows"]))
    return "\n".join(lines) + "\n"


def nccl_pick(ver, est, size, d, op, nvls):
    """NCCL's choice over the oracle's times, collNetSupport 0, float sum (no 8-bit or
    fp8 rules), no tuner plugin: a transcription of v2.8.4-1 enqueue.cc getAlgoInfo
    :286-296; v2.12.12-1 :434-450; v2.19.3-1 topoGetAlgoInfo :1166-1199; v2.21.5-1
    :1498-1531; v2.30.7-1 updateCollCostTable :1989-2025 and topoGetAlgoInfo :2028-2046.
    Returns (algo, proto, time), or (..., "backup") for 2.19-2.21's backup pick."""
    nnodes, ppn = d["nodes"], d["gpus_per_node"]
    best = backup = None
    for ga in ALGOS[ver]:
        a = NCCL_ALGO[ga]
        if a.startswith("CollNet"):
            continue
        if ver == "2.19.3":
            if a == "NVLS" and not nvls and op != "allgather":
                continue
            if a == "NVLSTree" and not nvls:
                continue
        elif ver in ("2.21.5", "2.30.7"):
            # 2.30.7 also for a non-all-reduce beyond NCCL_MAX_NVLS_ARITY local ranks (device.h: 32)
            if a in ("NVLS", "NVLSTree") and (not nvls or (ver == "2.30.7" and op != "allreduce" and ppn > 32)):
                continue
        if a == "NVLS" and nnodes > 1:
            continue
        for p in PROTOS:
            t, bk = est.get((a, p, size), (-1.0, False))
            if t < 0:
                continue
            if not bk and (best is None or t < best[2]):
                best = (a, p, t)
            if bk and (backup is None or t < backup[2]):
                backup = (a, p, t)
    return best or (backup and (backup[0], backup[1], backup[2], "backup"))


def rel(a, b):
    return abs(a - b) / abs(b)


def fmt_size(s):
    for unit, k in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if s >= 1 << k and s % (1 << k) == 0:
            return "%d %s" % (s >> k, unit)
    return "%d B" % s


def run_case(run, ver, topo, nodes, op, extra):
    """One case; returns a dict of counts and report lines (never raises)."""
    name = "%s %s n=%d %s%s" % (ver, os.path.basename(topo)[:-5], nodes, op,
                                (" " + " ".join(extra)) if extra else "")
    res = {"name": name, "est": 0, "max": (0.0, ""), "above": [], "onesided": [], "choices": 0,
           "choice_diff": [], "forced": 0, "forced_diff": [], "fallback": [], "cells": [], "failed": None}
    try:
        d, err = run.gdrlab(topo, nodes, ver, op, extra)
        if err:
            raise RuntimeError("gdrlab: " + err)
        eng = run.engine(d)
        for k in ("channels", "bw_intra_gbps", "bw_inter_gbps"):  # the same search as busbw's?
            if abs(eng["ring"][k] - d["graphs"]["ring"][k]) > 1e-6 * abs(d["graphs"]["ring"][k]):
                raise RuntimeError("engine-graphs' ring differs from busbw's: %s %s" % (
                    eng["ring"], d["graphs"]["ring"]))
        # all-gather and reduce-scatter round a size down to whole elements a rank, as
        # nccl-tests does, so the smallest can be 0 bytes: nothing runs, nothing to compare
        d["rows"] = [r for r in d["rows"] if r["size"]]
        sizes = [r["size"] for r in d["rows"]]
        spec = oracle_spec(d, eng, op)
        nvls = bool(d["graphs"].get("nvls")) and d["graphs"]["nvls"]["channels"] > 0
        est = run.oracle(ver, spec)

        for r in d["rows"]:
            res["choices"] += 1
            g, n = (r["algo"], r["proto"], r["nccl_estimate_us"]), nccl_pick(ver, est, r["size"], d, op, nvls)
            if not n or len(n) > 3 or g[:2] != n[:2] or rel(g[2], n[2]) > CHOICE_TOL:
                res["choice_diff"].append("DEFAULT %s size %s: gdrlab %s/%s %.9g us; NCCL %s" % (
                    name, fmt_size(r["size"]), g[0], g[1], g[2], n and "/".join(map(str, n))))

        for ga in ALGOS[ver]:
            a = NCCL_ALGO[ga]
            for p in PROTOS:
                fd, ferr = run.gdrlab(topo, nodes, ver, op, extra, ga, p)
                est_f = run.oracle(ver, spec, a, p)
                rows = {r["size"]: r for r in fd["rows"]} if fd else {}
                cell, cmax = "%s %s/%s" % (name, a, p), None
                for s in sizes:
                    where = "%s size %s" % (cell, fmt_size(s))
                    # a backup time (2.19-2.21) is no enabled entry
                    od = -1.0 if est[(a, p, s)][1] else est[(a, p, s)][0]
                    of = -1.0 if est_f[(a, p, s)][1] else est_f[(a, p, s)][0]
                    pick = nccl_pick(ver, est_f, s, d, op, nvls)
                    res["forced"] += 1
                    if ferr:
                        if od >= 0 or of >= 0:
                            res["onesided"].append("ONESIDED %s: gdrlab refuses (%s); NCCL %.9g" % (
                                where, ferr, od if od >= 0 else of))
                        elif pick:
                            res["fallback"].append("FALLBACK %s: gdrlab refuses; NCCL runs %s" % (
                                where, "/".join(map(str, pick))))
                        continue
                    r = rows.get(s)
                    if not r or (r["algo"], r["proto"]) != (a, p):
                        res["forced_diff"].append("FORCED %s: gdrlab runs %s" % (
                            where, r and "%s/%s" % (r["algo"], r["proto"])))
                        continue
                    # NCCL's default may disable an LL128 entry that NCCL_PROTO=LL128 enables
                    ref = od if od >= 0 else of
                    if ref < 0:
                        res["onesided"].append("ONESIDED %s: gdrlab %.9g; NCCL has none, even under "
                                               "NCCL_ALGO/NCCL_PROTO" % (where, r["nccl_estimate_us"]))
                        continue
                    x = rel(r["nccl_estimate_us"], ref)
                    res["est"] += 1
                    cmax = max(cmax or 0.0, x)
                    if x > res["max"][0]:
                        res["max"] = (x, where)
                    if x > run.a.th:
                        res["above"].append("ABOVE %s: gdrlab %.10g; NCCL %.10g%s; rel %.3g" % (
                            where, r["nccl_estimate_us"], ref, "" if od >= 0 else " (under NCCL_PROTO)", x))
                    if (not pick or len(pick) > 3 or pick[:2] != (a, p)
                            or rel(r["nccl_estimate_us"], pick[2]) > CHOICE_TOL):
                        res["forced_diff"].append("FORCED %s: gdrlab %s/%s; NCCL runs %s" % (
                            where, a, p, pick and "/".join(map(str, pick))))
                res["cells"].append("%-48s %s" % (cell, "max rel %.2e" % cmax if cmax is not None
                                                  else "refused" if ferr else "-"))
    except (RuntimeError, KeyError, TypeError, ValueError) as e:  # a case that cannot be compared fails
        res["failed"] = "FAILED %s: %s" % (name, e)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gdrlab", required=True, help="the built gdrlab binary")
    ap.add_argument("--oracles", required=True, help="folder of oracle-<tag> binaries")
    ap.add_argument("--engine-graphs", required=True, help="the engine-graphs binary")
    ap.add_argument("--repo", required=True, help="gdrlab's source tree (topology paths are relative to it)")
    ap.add_argument("--releases", default=",".join(TAGS))
    ap.add_argument("--quick", action="store_true", help="two cases a release")
    ap.add_argument("--factor", type=int, default=4, help="size factor, 8 B to 8 GiB")
    ap.add_argument("--th", type=float, default=1e-6, help="relative difference that fails")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--details", help="write every row and finding here")
    a = ap.parse_args()
    rels = a.releases.split(",")
    for v in rels:
        if v not in TAGS:
            ap.error("unknown release %s (known: %s)" % (v, ",".join(TAGS)))
    a.gdrlab = os.path.abspath(a.gdrlab)

    run = Run(a)
    todo = [(v,) + c for v in rels for c in cases(v, a.quick)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        results = list(pool.map(lambda c: run_case(run, *c), todo))

    def total(k):
        return sum(len(r[k]) if isinstance(r[k], list) else r[k] for r in results)
    failed = [r["failed"] for r in results if r["failed"]]
    mx = max((r["max"] for r in results), default=(0.0, ""))
    bad = total("above") + total("onesided") + total("choice_diff") + total("forced_diff") + len(failed)

    def line(label, text):
        print("%-21s %s" % (label + ":", text))
    line("cases", "%d (releases %s; sizes 8 B - 8 GiB by %d)%s" % (
        len(results), ",".join(rels), a.factor, ", %d FAILED" % len(failed) if failed else ""))
    line("estimates compared", "%d, largest relative difference %.3g%s" % (
        total("est"), mx[0], " (%s)" % mx[1] if mx[1] else ""))
    line("rows above %g" % a.th, total("above"))
    line("one-sided estimates", "%d (an estimate on one side, none on the other)" % total("onesided"))
    line("default choices", "%d compared, %d differ" % (total("choices"), total("choice_diff")))
    line("forced choices", "%d compared, %d differ; %d where gdrlab refuses and NCCL falls back (expected)" % (
        total("forced"), total("forced_diff"), total("fallback")))
    problems = failed + [x for r in results for k in ("above", "onesided", "choice_diff", "forced_diff") for x in r[k]]
    for line in problems[:10]:
        print("  " + line)
    if len(problems) > 10:
        print("  ... %d more%s" % (len(problems) - 10, " in " + a.details if a.details else ""))

    if a.details:
        with open(a.details, "w") as f:
            f.write("# per (case, algorithm, protocol): the largest relative difference\n")
            for r in results:
                f.write("".join(c + "\n" for c in r["cells"]))
            for k in ("failed", "above", "onesided", "choice_diff", "forced_diff", "fallback"):
                f.write("# %s\n" % k)
                for r in results:
                    v = r[k]
                    f.write("".join(x + "\n" for x in (v if isinstance(v, list) else [v] if v else [])))
    print("PASS" if not bad else "FAIL")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
