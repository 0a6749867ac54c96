/* SPDX-License-Identifier: MIT */
#ifndef GDRLAB_ANALYTIC_H
#define GDRLAB_ANALYTIC_H

#include "backend.h"

/* Closed-form backend: NCCL's algorithms as slice pipelines, each pipe
 * timed in closed form (pipeline.h) at the rates max-min sharing of the
 * links leaves its connections (model/analytic*.c). */
extern const struct backend_ops analytic_backend_ops;

#endif
