/* SPDX-License-Identifier: MIT */
// The driver's description of one communicator, read from stdin the same
// way for every tag's harness (oracle.cc, oracle30.cc), which then put it
// into that tag's own structs. Names (path classes, patterns, CPU types)
// are mapped by names.h to the tag's macros.
//
//   nranks N | nnodes N | mincc CC | maxcc CC | arch NAME | vendor NAME
//   commch C                    comm->nChannels (connect.cc's count)
//   collnet 0|1                 CollNet on (off by default)
//   graph KIND nCh bwIntra bwInter typeIntra typeInter pattern sameChannels
//                               KIND: tree ring collnet nvls
//   coll F                      ncclFunc_t: 0 Broadcast 1 Reduce 2 AllGather 3 ReduceScatter 4 AllReduce
//   sizes S1 S2 ...             nBytes (the total for all-gather, as NCCL's info has it)
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "names.h"

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
