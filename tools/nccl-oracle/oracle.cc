/* SPDX-License-Identifier: MIT */
// Oracle for NCCL 2.8 - 2.21, as tested: v2.8.4-1, v2.12.12-1, v2.19.3-1,
// v2.21.5-1 (the #if's split the tested tags, not every release between).
//
// Linked with the tag's UNMODIFIED src/graph/tuning.cc, compiled against the
// tag's own headers: struct ncclComm, ncclTopoGraph, ncclInfo, the PATH_* and
// pattern macros and every constant and formula are NCCL's. This file only
// fills a communicator and its graphs from the driver's description, calls
// ncclTopoTuneModel and ncclTopoGetAlgoTime, and defines the few symbols
// tuning.cc links against that live in files we do not build (init.cc,
// param.cc, debug.cc, topo.cc).
//
// Input (stdin): input.h's directives.
// Output:
//   tab FUNC ALGO PROTO LAT BW      comm->latencies / bandwidths after ncclTopoTuneModel
//                                   (unused by compare.py; for a reader running the oracle by hand)
//   est ALGO PROTO SIZE TIME BACKUP ncclTopoGetAlgoTime(info, a, p, numPipeOps=1), info->nChannels=0;
//                                   BACKUP=1 when 2.19+ returned the ring's backup time
#include "core.h"
#include "comm.h"
#include "graph.h"
#include "info.h"
#include "topo.h"
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>
#include "input.h"

// init.cc:40-42 (v2.8.4-1), :41-43 (v2.12.12-1), :39-41 (v2.19.3-1, v2.21.5-1).
const char* ncclFuncStr[NCCL_NUM_FUNCTIONS] = { "Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce" };
#if NCCL_VERSION_CODE < 21700
const char* ncclAlgoStr[NCCL_NUM_ALGORITHMS] = { "Tree", "Ring", "CollNet" };
#else
const char* ncclAlgoStr[NCCL_NUM_ALGORITHMS] = { "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree" };
#endif
const char* ncclProtoStr[NCCL_NUM_PROTOCOLS] = { "LL", "LL128", "Simple" };

// topo.cc's ncclTopoCpuType (v2.21.5-1 :868) returns the first CPU node's
// arch/vendor/model; here they come from the input. tuning.cc never reads the model.
static int g_arch = NCCL_TOPO_CPU_ARCH_X86, g_vendor = NCCL_TOPO_CPU_VENDOR_INTEL;
ncclResult_t ncclTopoCpuType(struct ncclTopoSystem* system, int* arch, int* vendor, int* model) {
  *arch = g_arch; *vendor = g_vendor; *model = 0;
  return ncclSuccess;
}
// topo.cc:951 (v2.21.5-1) counts NVSwitches; tuning.cc asks only to allow CollNet Direct
// (:297-300), and CollNet is off here.
ncclResult_t ncclTopoGetNvsCount(struct ncclTopoSystem* system, int* count) { *count = 0; return ncclSuccess; }
// param.cc:62, :83 (v2.21.5-1), without the config files (~/.nccl.conf,
// /etc/nccl.conf): only the environment, which compare.py clears of NCCL_*
// apart from the NCCL_ALGO / NCCL_PROTO it sets.
// (2.8.4's NCCL_PARAM reads getenv inline, param.h:57; these stay unused there.)
const char* ncclGetEnv(const char* name) { return getenv(name); }
void ncclLoadParam(char const* env, int64_t deftVal, int64_t uninitialized, int64_t* cache) {
  const char* str = getenv(env);
  int64_t v = deftVal;
  if (str && strlen(str) > 0) v = strtoll(str, nullptr, 0);
  __atomic_store_n(cache, v, __ATOMIC_RELAXED);
}
// debug.cc (v2.21.5-1 :152): NCCL's INFO/WARN lines, shown with ORACLE_LOG=1.
thread_local int ncclDebugNoWarn = 0;
void ncclDebugLog(ncclDebugLogLevel level, unsigned long flags, const char* filefunc, int line, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  oracle_log((int)level, fmt, ap);
  va_end(ap);
}

int main() {
  static struct ncclComm comm;       // static: zeroed, and too large for the stack
  static struct ncclTopoGraph g[4];  // tree ring collnet nvls
  oracle_input in = read_input(std::cin);
  int mincc = in.minCompCap, maxcc = in.maxCompCap, coll = in.coll;
  std::vector<size_t>& sizes = in.sizes;

  comm.rank = 0;
  comm.topo = (struct ncclTopoSystem*)&comm;  // opaque: only handed to the stubs above
  comm.nRanks = in.nRanks;
  comm.nNodes = in.nNodes;
  comm.nChannels = in.nChannels;
  comm.collNetSupport = in.collNet;
  g_arch = nameOf(in.arch);
  g_vendor = nameOf(in.vendor);
  fill_graphs(g, in);
  comm.localRanks = comm.nRanks / comm.nNodes;
#if NCCL_VERSION_CODE >= 21700
  comm.minCompCap = mincc;
  comm.maxCompCap = maxcc;
  // graphs[] as init.cc builds it: Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree.
  struct ncclTopoGraph* graphs[NCCL_NUM_ALGORITHMS] = { &g[0], &g[1], &g[2], &g[2], &g[3], &g[3] };
  ncclResult_t res = ncclTopoTuneModel(&comm, mincc, maxcc, graphs);
#else
  ncclResult_t res = ncclTopoTuneModel(&comm, mincc, maxcc, &g[0], &g[1], &g[2]);
#endif
  if (res != ncclSuccess) {
    fprintf(stderr, "ncclTopoTuneModel failed\n");
    return 1;
  }
  print_tables(comm);
  static struct ncclInfo info;
  info.comm = &comm;
  info.coll = (ncclFunc_t)coll;
  info.nChannels = 0;  // let tuning.cc use the communicator's channels
  for (size_t s : sizes) {
    info.nBytes = s;
    for (int a = 0; a < NCCL_NUM_ALGORITHMS; a++)
      for (int p = 0; p < NCCL_NUM_PROTOCOLS; p++) {
        float t;
        int bk = 0;
#if NCCL_VERSION_CODE >= 21700
        bool backup = false;
        ncclTopoGetAlgoTime(&info, a, p, 1, &t, &backup);
        bk = backup;
#elif NCCL_VERSION_CODE < 10000  // 2.8: NCCL_VERSION = X*1000+Y*100+Z, and no numPipeOps yet
        ncclTopoGetAlgoTime(&info, a, p, &t);
#else
        ncclTopoGetAlgoTime(&info, a, p, 1, &t);
#endif
        printf("est %s %s %zu %.9g %d\n", ncclAlgoStr[a], ncclProtoStr[p], s, t, bk);
      }
  }
  return 0;
}
