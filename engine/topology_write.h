/* SPDX-License-Identifier: MIT */
#ifndef GDRLAB_TOPOLOGY_WRITE_H
#define GDRLAB_TOPOLOGY_WRITE_H

#include <stdio.h>

#include "topology.h"

/*
 * Write @t as a topology file that topology_load() reads back to the same
 * values (to ten significant digits). 0, or -EIO when @f failed.
 */
int topology_write(FILE *f, const struct topology *t);

#endif
