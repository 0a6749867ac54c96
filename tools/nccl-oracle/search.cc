/* SPDX-License-Identifier: MIT */
// Graph-search oracle for NCCL 2.8 - 2.30, as tested: v2.8.4-1, v2.12.12-1,
// v2.19.3-1, v2.21.5-1, v2.30.7-1 (the #if's split the tested tags, not every
// release between).
//
// Linked with the tag's UNMODIFIED src/graph/topo.cc, paths.cc, search.cc and
// xml.cc, compiled against the tag's own headers. This file reads a topology
// XML (NCCL_TOPO_FILE's format, as topo_xml.c writes it), builds the system,
// computes the paths and searches the ring and the tree graphs as init.cc
// does; everything else it defines is a link stub for symbols those four
// files reference in files we do not build (init.cc, param.cc, debug.cc,
// nvmlwrap.cc, ...), most of them never called here.
//
// usage:  search-oracle TOPOLOGY.xml NNODES
// output: GRAPH NCH BWINTRA BWINTER TYPEINTRA TYPEINTER PATTERN   (ring, tree;
//         nvls too with ORACLE_NVLS=1, from 2.17: init.cc searches it where
//         the GPUs can multicast, which no XML says)
//         comm NCH        the communicator's channels, min(ring, tree)
// NNODES only tells the search whether there is a network (NNODES > 1) and,
// up to 2.8, which tree pattern init.cc asks for. ORACLE_GRAPHS=1 prints each
// channel's NICs and GPUs on stderr, ORACLE_LOG=1 NCCL's own log lines.
#include "core.h"
#include "graph.h"
#include "topo.h"
#include "xml.h"
#include "transport.h"
#if NCCL_VERSION_CODE >= 21200
#include "nvmlwrap.h"
#endif
#if NCCL_VERSION_CODE >= 21200 && NCCL_VERSION_CODE < 23000
#include "net.h"
#endif
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cctype>

// search.cc defines it, graph.h of the tested tags does not declare it.
ncclResult_t ncclTopoSearchInit(struct ncclTopoSystem* system);

static const char* patternName(int p) {
  switch (p) {
  case NCCL_TOPO_PATTERN_RING: return "RING";
  case NCCL_TOPO_PATTERN_TREE: return "TREE";
  case NCCL_TOPO_PATTERN_SPLIT_TREE: return "SPLIT_TREE";
  case NCCL_TOPO_PATTERN_BALANCED_TREE: return "BALANCED_TREE";
#if NCCL_VERSION_CODE >= 21700
  case NCCL_TOPO_PATTERN_NVLS: return "NVLS";
#endif
  }
  return "?";
}

// topo.cc's own names (topoPathTypeStr), up to SYS: the types a graph keeps.
static const char* pathName(int t) { return t >= 0 && t <= PATH_SYS ? topoPathTypeStr[t] : "?"; }

static void print(const char* name, const struct ncclTopoGraph* g) {
#if NCCL_VERSION_CODE < 21900
  float intra = g->speedIntra, inter = g->speedInter;  // renamed bwIntra/bwInter later
#else
  float intra = g->bwIntra, inter = g->bwInter;
#endif
  printf("%s %d %g %g %s %s %s\n", name, g->nChannels, intra, inter, pathName(g->typeIntra),
         pathName(g->typeInter), patternName(g->pattern));
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s TOPOLOGY.xml NNODES\n", argv[0]);
    return 2;
  }
  int nNodes = atoi(argv[2]);
  if (nNodes < 2) {
    fprintf(stderr, "search-oracle: NNODES must be 2 or more (on one node init.cc trims the NICs)\n");
    return 2;
  }
  // paths.cc asks NVML whether P2P between two GPUs is disabled unless
  // NCCL_IGNORE_DISABLED_P2P=2 (v2.19.3-1 src/graph/paths.cc:305); there is
  // no GPU here, and the XML describes a machine where P2P works.
  setenv("NCCL_IGNORE_DISABLED_P2P", "2", 1);

  struct ncclXml* xml;
#if NCCL_VERSION_CODE >= 22100
  NCCLCHECK(xmlAlloc(&xml, NCCL_TOPO_XML_MAX_NODES));  // as topo.cc ncclTopoGetSystem
#else
  NCCLCHECK(ncclCalloc(&xml, 1));
#endif
#if NCCL_VERSION_CODE < 21200
  NCCLCHECK(ncclTopoGetXmlFromFile(argv[1], xml));
#else
  NCCLCHECK(ncclTopoGetXmlFromFile(argv[1], xml, 1));
#endif
  struct ncclTopoSystem* system;
#if NCCL_VERSION_CODE >= 22100
  // This host is the XML's one: topo_xml.c writes host_hash 0x1 on every CPU.
  NCCLCHECK(ncclTopoGetSystemFromXml(xml, &system, 0x1));
#else
  NCCLCHECK(ncclTopoGetSystemFromXml(xml, &system));
#endif
  // init.cc: paths, ncclTopoTrimSystem, paths again, ncclTopoSearchInit
  // (v2.8.4-1 :627-635, v2.19.3-1 :881-889, v2.30.7-1 :1141-1149). Trimming
  // removes nothing here (every GPU is a rank of the communicator, and across
  // nodes the NICs stay); in 2.30 it also sets system->inter, "GPUs of this
  // node != ranks" (v2.30.7-1 src/graph/paths.cc:904).
  NCCLCHECK(ncclTopoComputePaths(system, NULL));
#if NCCL_VERSION_CODE >= 23000
  system->inter = 1;
#endif
  NCCLCHECK(ncclTopoComputePaths(system, NULL));
  NCCLCHECK(ncclTopoSearchInit(system));

  // init.cc's ring then tree (v2.8.4-1 :640-657, v2.12.12-1 :503-518,
  // v2.19.3-1 :916-929, v2.21.5-1 :1047-1060, v2.30.7-1 :1173-1186).
  static struct ncclTopoGraph ring, tree;  // static: zeroed, and large
  ring.id = 0;
  ring.pattern = NCCL_TOPO_PATTERN_RING;
#if NCCL_VERSION_CODE < 21200
  ring.crossNic = 2;  // ncclParamCrossNic(), NCCL_PARAM(CrossNic, "CROSS_NIC", 2), v2.8.4-1 init.cc:552;
                      // later search.cc reads the parameter itself
#endif
  ring.minChannels = 1;
  ring.maxChannels = MAXCHANNELS / 2;
  NCCLCHECK(ncclTopoCompute(system, &ring));

  tree.id = 1;
#if NCCL_VERSION_CODE < 21200
  // tmpNnodes counts hosts up to 3 (v2.8.4-1 init.cc:602-608, 652)
  tree.pattern = nNodes <= 2 ? NCCL_TOPO_PATTERN_TREE : NCCL_TOPO_PATTERN_BALANCED_TREE;
  tree.crossNic = 2;
#else
  tree.pattern = NCCL_TOPO_PATTERN_BALANCED_TREE;
#endif
#if NCCL_VERSION_CODE < 21800
  tree.minChannels = 1;
#else
  tree.minChannels = ring.nChannels;
#endif
  tree.maxChannels = ring.nChannels;
  NCCLCHECK(ncclTopoCompute(system, &tree));

  print("ring", &ring);
  print("tree", &tree);
#if NCCL_VERSION_CODE >= 21700
  // init.cc's NVLS graph, after the CollNet ones (which need a plugin):
  // minChannels 1, maxChannels MAXCHANNELS (v2.19.3-1 :942-949,
  // v2.30.7-1 :1209-1217).
  if (getenv("ORACLE_NVLS")) {
    static struct ncclTopoGraph nvls;
    nvls.id = 3;
    nvls.pattern = NCCL_TOPO_PATTERN_NVLS;
    nvls.minChannels = 1;
    nvls.maxChannels = MAXCHANNELS;
    NCCLCHECK(ncclTopoCompute(system, &nvls));
    print("nvls", &nvls);
  }
#endif
  if (getenv("ORACLE_GRAPHS")) {  // each channel: NET in -> GPUs (rank) -> NET out, on stderr
    const struct ncclTopoGraph* gs[2] = {&ring, &tree};
    for (int k = 0; k < 2; k++)
      for (int c = 0; c < gs[k]->nChannels; c++) {
        fprintf(stderr, "%s %2d: NET %ld ->", k ? "tree" : "ring", c, (long)gs[k]->inter[2 * c]);
        for (int i = 0; i < system->nodes[GPU].count; i++) fprintf(stderr, " %d", gs[k]->intra[c * system->nodes[GPU].count + i]);
        fprintf(stderr, " -> NET %ld\n", (long)gs[k]->inter[2 * c + 1]);
      }
  }
  // init.cc: comm->nChannels = std::min(treeGraph.nChannels, ringGraph.nChannels)
  // (v2.8.4-1 :695, v2.30.7-1 :1280), before connect.cc doubles them.
  printf("comm %d\n", ring.nChannels < tree.nChannels ? ring.nChannels : tree.nChannels);
  return 0;
}

// ---- link stubs -----------------------------------------------------------

// init.cc / param.cc: only the environment (search.sh clears NCCL_*), no
// config files (~/.nccl.conf).
const char* ncclGetEnv(const char* name) { return getenv(name); }
#if NCCL_VERSION_CODE >= 23000
int64_t ncclLoadParam(char const* env, int64_t deftVal, int64_t uninitialized, int64_t* cache, int8_t* noCache) {
  const char* str = getenv(env);
  int64_t v = str && strlen(str) > 0 ? strtoll(str, nullptr, 0) : deftVal;
  __atomic_store_n(cache, v, __ATOMIC_RELAXED);
  return v;
}
#else
void ncclLoadParam(char const* env, int64_t deftVal, int64_t uninitialized, int64_t* cache) {
  const char* str = getenv(env);
  int64_t v = str && strlen(str) > 0 ? strtoll(str, nullptr, 0) : deftVal;
  __atomic_store_n(cache, v, __ATOMIC_RELAXED);
}
#endif

// debug.cc: NCCL's INFO/WARN lines, shown with ORACLE_LOG=1.
thread_local int ncclDebugNoWarn = 0;
static void logLine(int level, const char* fmt, va_list ap) {
  if (!getenv("ORACLE_LOG")) return;
  fprintf(stderr, "[nccl %d] ", level);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
}
#if NCCL_VERSION_CODE >= 23000
void ncclDebugLogInternal(ncclDebugLogLevel level, unsigned long flags, const char* file, const char* func, int line,
                          const char* fmt, ...) {
#else
void ncclDebugLog(ncclDebugLogLevel level, unsigned long flags, const char* filefunc, int line, const char* fmt, ...) {
#endif
  va_list ap;
  va_start(ap, fmt);
  logLine((int)level, fmt, ap);
  va_end(ap);
}
#if NCCL_VERSION_CODE >= 23000
// debug.h's INFO/TRACE macros test these first; a level below 0 ("not yet
// read") sends every line to ncclDebugLogInternal, which filters above.
int ncclDebugLevel = -1;
uint64_t ncclDebugMask = ~0ULL;
// os/linux.cc: topo.cc parses a CPU's affinity mask with cpuset.h.
void ncclOsCpuZero(ncclAffinity& affinity) { CPU_ZERO(&affinity); }
void ncclOsCpuSet(ncclAffinity& affinity, int cpu) { CPU_SET(cpu, &affinity); }
#endif

// misc/utils.cc: a PCI bus id "0000:3d:00.0" as the number 0x00003d000 (its
// hex digits, the separators dropped), the node ids topo.cc uses.
ncclResult_t busIdToInt64(const char* busId, int64_t* id) {
  int64_t v = 0;
  for (int n = 0; *busId && n < 16; busId++) {
    if (*busId == ':' || *busId == '.') continue;
    if (!isxdigit((unsigned char)*busId)) break;
    v = v * 16 + (isdigit((unsigned char)*busId) ? *busId - '0' : tolower((unsigned char)*busId) - 'a' + 10);
    n++;
  }
  *id = v;
  return ncclSuccess;
}

// transport.cc: paths.cc asks the P2P and SHM transports only when given a
// communicator (v2.19.3-1 src/graph/paths.cc:561); this harness passes none.
#if NCCL_VERSION_CODE >= 21900
struct ncclTransport* ncclTransports[NTRANSPORTS];
#else
struct ncclTransport ncclTransports[NTRANSPORTS] = {};
#endif

#if NCCL_VERSION_CODE >= 21200
// nvmlwrap.cc: paths.cc's P2P status check, skipped under
// NCCL_IGNORE_DISABLED_P2P=2 (set in main).
ncclNvmlDevicePairInfo ncclNvmlDevicePairs[ncclNvmlMaxDevices][ncclNvmlMaxDevices];
ncclResult_t ncclNvmlEnsureInitialized() {
  fprintf(stderr, "search-oracle: NVML asked for, there is none\n");
  return ncclSystemError;
}
#endif
#if NCCL_VERSION_CODE >= 21900 && NCCL_VERSION_CODE < 23000
// net.cc: asked only with a communicator (v2.19.3-1 paths.cc:483).
int ncclNetVersion(struct ncclComm* comm) { return 0; }
#elif NCCL_VERSION_CODE >= 21200 && NCCL_VERSION_CODE < 21900
// net.cc:259-261 (v2.12.12-1): 4 only for a v4 plugin; NCCL's own IB and
// socket transports are v5, so PXN stays as NCCL_PXN_DISABLE says.
int ncclNetVersion() { return 5; }
#endif
