/* SPDX-License-Identifier: MIT */
#ifndef GDRLAB_ANALYTIC_H
#define GDRLAB_ANALYTIC_H

#include "backend.h"

/* Closed-form backend: alpha-beta per stage, pipelining in closed form,
 * max-min sharing among the transfers of a step. */
extern const struct backend_ops analytic_backend_ops;

#endif
