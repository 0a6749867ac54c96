/* SPDX-License-Identifier: MIT */
/*
 * The `fabric:` mapping of a topology file (docs/topology-format.md): the
 * crossbar's keys, or the switches themselves. Only topology_yaml.c
 * calls it.
 */
#ifndef GDRLAB_TOPOLOGY_YAML_FABRIC_H
#define GDRLAB_TOPOLOGY_YAML_FABRIC_H

#include "topology.h"
#include "yaml_doc.h"

/* Read mapping @n into t->fabric; t->nics and t->nodes are read already
 * (the switches' ports are checked against them). 0 or -EINVAL. */
int topology_read_fabric(const struct yaml_doc *y, yaml_node_t *n, struct topology *t);

#endif
