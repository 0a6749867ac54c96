/* SPDX-License-Identifier: MIT */
// The driver's description of one communicator, read from stdin the same
// way for every tag's harness (oracle.cc, oracle30.cc), which then put it
// into that tag's own structs, and what both print of the tuner's tables.
// Names (path classes, patterns, CPU types) are mapped by names.h to the
// tag's macros. Included after the tag's headers (graph.h, comm.h).
//
//   nranks N | nnodes N | mincc CC | maxcc CC | arch NAME | vendor NAME
//   commch C                    comm->nChannels (connect.cc's count)
//   collnet 0|1                 CollNet on (off by default)
//   graph KIND nCh bwIntra bwInter typeIntra typeInter pattern sameChannels
//                               KIND: tree ring collnet nvls
//   coll F                      ncclFunc_t: 0 Broadcast 1 Reduce 2 AllGather 3 ReduceScatter 4 AllReduce
//   sizes S1 S2 ...             nBytes (the total for all-gather, as NCCL's info has it)
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "names.h"

// NCCL's INFO/WARN lines, on stderr with ORACLE_LOG=1 (the harnesses'
// debug.cc stubs: each tag has its own signature).
static void oracle_log(int level, const char* fmt, va_list ap) {
  if (!getenv("ORACLE_LOG")) return;
  fprintf(stderr, "[nccl %d] ", level);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
}

struct oracle_graph {
  bool set;
  int nChannels, typeIntra, typeInter, pattern, sameChannels;
  float bwIntra, bwInter;
};

struct oracle_input {
  int nRanks = 0, nNodes = 1, minCompCap = 80, maxCompCap = 80;
  int coll = 4;  // ncclFuncAllReduce
  int collNet = 0, nChannels = 0;
  std::string arch = "X86", vendor = "INTEL";
  oracle_graph graphs[4] = {};  // tree ring collnet nvls
  std::vector<size_t> sizes;
};

static oracle_input read_input(std::istream& in) {
  oracle_input d;
  std::string line;

  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string k;

    ss >> k;
    if (k == "nranks") ss >> d.nRanks;
    else if (k == "nnodes") ss >> d.nNodes;
    else if (k == "mincc") ss >> d.minCompCap;
    else if (k == "maxcc") ss >> d.maxCompCap;
    else if (k == "arch") ss >> d.arch;
    else if (k == "vendor") ss >> d.vendor;
    else if (k == "commch") ss >> d.nChannels;
    else if (k == "collnet") ss >> d.collNet;
    else if (k == "coll") ss >> d.coll;
    else if (k == "sizes") {
      size_t s;
      while (ss >> s) d.sizes.push_back(s);
    } else if (k == "graph") {
      std::string kind, ti, te, pat;
      ss >> kind;
      oracle_graph& g = d.graphs[kind == "tree" ? 0 : kind == "ring" ? 1 : kind == "collnet" ? 2 : 3];
      ss >> g.nChannels >> g.bwIntra >> g.bwInter >> ti >> te >> pat >> g.sameChannels;
      g.typeIntra = nameOf(ti);
      g.typeInter = nameOf(te);
      g.pattern = nameOf(pat);
      g.set = true;
    }
  }
  return d;
}

// The tag's graphs g[0..3] (tree ring collnet nvls) from @in; the CollNet
// graph is a TREE pattern, as init.cc searches it.
static void fill_graphs(struct ncclTopoGraph* g, const oracle_input& in) {
  g[2].pattern = NCCL_TOPO_PATTERN_TREE;
  g[2].collNet = 1;
  for (int i = 0; i < 4; i++) {
    const oracle_graph& d = in.graphs[i];
    if (!d.set) continue;
    g[i].nChannels = d.nChannels;
    g[i].typeIntra = d.typeIntra;
    g[i].typeInter = d.typeInter;
    g[i].pattern = d.pattern;
    g[i].sameChannels = d.sameChannels;
#if NCCL_VERSION_CODE < 21700  // speedIntra/speedInter until 2.13, bwIntra/bwInter from 2.14
    g[i].speedIntra = d.bwIntra; g[i].speedInter = d.bwInter;
#else
    g[i].bwIntra = d.bwIntra; g[i].bwInter = d.bwInter;
#endif
  }
}

// The tuner's latency and bandwidth tables, a "tab" line each.
static void print_tables(const struct ncclComm& comm) {
  for (int c = 0; c < NCCL_NUM_FUNCTIONS; c++)
    for (int a = 0; a < NCCL_NUM_ALGORITHMS; a++)
      for (int p = 0; p < NCCL_NUM_PROTOCOLS; p++)
        printf("tab %s %s %s %.9g %.9g\n", ncclFuncStr[c], ncclAlgoStr[a], ncclProtoStr[p],
               comm.latencies[c][a][p], comm.bandwidths[c][a][p]);
}
