/* SPDX-License-Identifier: MIT */
// The driver sends path classes, patterns and CPU types by NAME (PIX, PXN,
// RING, X86, ...). Each is mapped here to the tag's own macro, so that no
// number of NCCL's is re-typed: the values come from the tag's graph.h /
// topo.h, and a name the tag lacks (PXN before 2.12, P2C before 2.27, NVLS
// before 2.17) is simply unknown there.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

static int nameOf(const std::string& s) {
#define M(tok, val) if (s == tok) return (val);
  M("LOC", PATH_LOC) M("NVL", PATH_NVL) M("NVB", PATH_NVB) M("PIX", PATH_PIX) M("PXB", PATH_PXB)
  M("PHB", PATH_PHB) M("SYS", PATH_SYS)
#ifdef PATH_PXN
  M("PXN", PATH_PXN)
#endif
#ifdef PATH_P2C
  M("P2C", PATH_P2C)
#endif
#ifdef PATH_C2C
  M("C2C", PATH_C2C)
#endif
  M("RING", NCCL_TOPO_PATTERN_RING) M("TREE", NCCL_TOPO_PATTERN_TREE)
  M("BALANCED_TREE", NCCL_TOPO_PATTERN_BALANCED_TREE) M("SPLIT_TREE", NCCL_TOPO_PATTERN_SPLIT_TREE)
#ifdef NCCL_TOPO_PATTERN_NVLS
  M("NVLS", NCCL_TOPO_PATTERN_NVLS)
#endif
  M("X86", NCCL_TOPO_CPU_ARCH_X86) M("POWER", NCCL_TOPO_CPU_ARCH_POWER) M("ARM", NCCL_TOPO_CPU_ARCH_ARM)
  M("INTEL", NCCL_TOPO_CPU_VENDOR_INTEL) M("AMD", NCCL_TOPO_CPU_VENDOR_AMD)
  M("ZHAOXIN", NCCL_TOPO_CPU_VENDOR_ZHAOXIN)
  // topo.cc reads a vendor for x86 CPUs only; an ARM CPU keeps NCCL_TOPO_UNDEF
  // (v2.21.5-1 src/graph/topo.cc:122 and :494-497).
  M("UNDEF", NCCL_TOPO_UNDEF)
#undef M
  fprintf(stderr, "oracle: unknown name %s for this release\n", s.c_str());
  exit(2);
}
