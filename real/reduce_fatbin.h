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

#ifdef GDRLAB_HAVE_CUDA_FATBIN
extern const unsigned char gdrlab_reduce_fatbin[];
extern const size_t gdrlab_reduce_fatbin_len;
#else
static const unsigned char gdrlab_reduce_fatbin[1];
static const size_t gdrlab_reduce_fatbin_len;
#endif

#endif
