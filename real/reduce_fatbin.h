/* SPDX-License-Identifier: MIT */
/*
 * The reduction kernels' fatbin (reduce.cu), embedded at build time when
 * CMake found nvcc (GDRLAB_CUDA=ON). Without it the image is empty and
 * cuda_reduce_open says the build had no CUDA toolkit: a stub here, so
 * that no .c file needs an #ifdef.
 */
#ifndef GDRLAB_REDUCE_FATBIN_H
#define GDRLAB_REDUCE_FATBIN_H

#include <stddef.h>

/*
 * What the image holds, as real/CMakeLists.txt asked nvcc for it: compute
 * capabilities (major * 10 + minor) with machine code (SASS), 0-ended;
 * the one with PTX; the toolkit's version.
 */
#ifdef GDRLAB_HAVE_CUDA_FATBIN
extern const unsigned char gdrlab_reduce_fatbin[];
extern const size_t gdrlab_reduce_fatbin_len;
extern const unsigned gdrlab_reduce_sass[];
extern const unsigned gdrlab_reduce_ptx;
extern const char gdrlab_reduce_toolkit[];
#else
static const unsigned char gdrlab_reduce_fatbin[1];
static const size_t gdrlab_reduce_fatbin_len;
static const unsigned gdrlab_reduce_sass[1];
static const unsigned gdrlab_reduce_ptx;
static const char gdrlab_reduce_toolkit[] = "none";
#endif

#endif
