/* SPDX-License-Identifier: MIT */
// Oracle for NCCL v2.30.7-1.
//
// Linked with the tag's UNMODIFIED src/graph/tuning.cc, compiled against the
// tag's own headers. Its tuning.cc takes the CPU type from the communicator
// (comm->cpuArch/cpuVendor), sets up its constants in
// ncclTopoInitTunerConstants, and its ncclTopoGetAlgoTime takes (comm, coll,
// algo, proto, nBytes, numPipeOps, &time): hence a harness of its own.
// No tuner plugin is loaded, so comm->tunerConstants stay NCCL's defaults,
// as init.cc:1638-1644 leaves them when comm->tuner is NULL.
//
// Input and output as oracle.cc's, except BACKUP, always 0: this
// ncclTopoGetAlgoTime has no backup time any more.
#include "core.h"
#include "comm.h"
#include "graph.h"
#include "nccl_tuner.h"
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

// init.cc:52-55.
const char* ncclFuncStr[NCCL_NUM_FUNCTIONS] = {"Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"};
const char* ncclAlgoStr[NCCL_NUM_ALGORITHMS] = {"Tree", "Ring", "CollNetDirect", "CollNetChain",
                                               "NVLS", "NVLSTree", "PAT"};
const char* ncclProtoStr[NCCL_NUM_PROTOCOLS] = {"LL", "LL128", "Simple"};
// topo.cc:2206 counts NVSwitches; tuning.cc asks only to allow CollNet Direct (:496, :509),
// and CollNet is off here.
ncclResult_t ncclTopoGetNvsCount(struct ncclTopoSystem* system, int* count) { *count = 0; return ncclSuccess; }
// misc/param.cc:78, :108, without the config files (~/.nccl.conf,
// /etc/nccl.conf): only the environment, which compare.py clears of NCCL_*
// apart from the NCCL_ALGO / NCCL_PROTO it sets.
const char* ncclGetEnv(const char* name) { return getenv(name); }
int64_t ncclLoadParam(char const* env, int64_t deftVal, int64_t uninitialized, int64_t* cache, int8_t* noCache) {
  const char* str = getenv(env);
  int64_t v = deftVal;
  if (str && strlen(str) > 0) v = strtoll(str, nullptr, 0);
  __atomic_store_n(cache, v, __ATOMIC_RELAXED);
  return v;
}
// debug.cc:26, :36, :381: NCCL's INFO/WARN lines, shown with ORACLE_LOG=1.
int ncclDebugLevel = NCCL_LOG_NONE;
uint64_t ncclDebugMask = 0;
thread_local int ncclDebugNoWarn = 0;
void ncclDebugLogInternal(ncclDebugLogLevel level, unsigned long flags, const char* file, const char* func, int line,
                          const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  oracle_log((int)level, fmt, ap);
  va_end(ap);
}

static struct ncclComm comm;  // static: zeroed, and too large for the stack
int main() {
  static struct ncclTopoGraph g[4];  // tree ring collnet nvls
  oracle_input in = read_input(std::cin);
  int mincc = in.minCompCap, maxcc = in.maxCompCap, coll = in.coll;
  std::vector<size_t>& sizes = in.sizes;

  comm.rank = 0;
  comm.topo = (struct ncclTopoSystem*)&comm;  // opaque: only handed to the stub above
  comm.config.collnetEnable = in.collNet;     // tuning.cc:504: CollNet off unless asked
  comm.ncclCollNet = nullptr;                 // tuning.cc:356-360: no CollNet plugin
  comm.netDeviceType = NCCL_NET_DEVICE_HOST;  // tuning.cc:221: PAT needs host networking
  comm.nRanks = in.nRanks;
  comm.nNodes = in.nNodes;
  comm.nChannels = in.nChannels;
  comm.cpuArch = nameOf(in.arch);
  comm.cpuVendor = nameOf(in.vendor);
  if (getenv("ORACLE_LOG")) { ncclDebugLevel = NCCL_LOG_INFO; ncclDebugMask = ~0ull; }
  fill_graphs(g, in);
  comm.localRanks = comm.nRanks / comm.nNodes;
  comm.minCompCap = mincc;
  comm.maxCompCap = maxcc;
  comm.maxTreePattern = g[0].pattern;  // init.cc:1447: the largest tree pattern over the ranks (all alike here)
  // graphs[] as init.cc:980-981 builds it: PAT is costed on the TREE graph.
  struct ncclTopoGraph* graphs[NCCL_NUM_ALGORITHMS] = {&g[0], &g[1], &g[2], &g[2], &g[3], &g[3], &g[0]};
  if (ncclTopoInitTunerConstants(&comm) != ncclSuccess ||
      ncclTopoTuneModel(&comm, mincc, maxcc, graphs) != ncclSuccess) {
    fprintf(stderr, "ncclTopoInitTunerConstants or ncclTopoTuneModel failed\n");
    return 1;
  }
  print_tables(comm);
  for (size_t s : sizes)
    for (int a = 0; a < NCCL_NUM_ALGORITHMS; a++)
      for (int p = 0; p < NCCL_NUM_PROTOCOLS; p++) {
        float t;
        ncclTopoGetAlgoTime(&comm, coll, a, p, s, 1, &t);
        printf("est %s %s %zu %.9g 0\n", ncclAlgoStr[a], ncclProtoStr[p], s, t);
      }
  return 0;
}
