/* SPDX-License-Identifier: MIT */
/*
 * A node's PCIe tree and GPU-NIC verdicts for gdrlab report
 * (report_cluster.h). The tree is laid out as lstopo draws one: each
 * leaf a column, a parent centred over its children, a row per depth.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gdr_policy.h"
#include "report_cluster.h"
#include "report_html.h"

enum box_kind { BOX_SOCKET, BOX_SWITCH, BOX_GPU, BOX_NIC };

struct box {
	enum box_kind kind;
	int index;     /* in the topology's array of that kind */
	int parent;    /* box index; -1 for a socket */
	unsigned depth;
	double x;      /* centre, in columns */
};

#define MAX_BOXES (TOPO_MAX_SOCKETS + TOPO_MAX_SWITCHES + TOPO_MAX_GPUS + TOPO_MAX_NICS)

struct layout {
	struct box box[MAX_BOXES];
	unsigned n, columns, depth;
};

/* Box @parent's children, in the order switches, GPUs, NICs: whether
 * (kind, index) hangs directly below it. */
static bool is_child(const struct topology *t, const struct box *parent, enum box_kind kind,
		     int i)
{
	const int below = parent->kind == BOX_SWITCH ? parent->index : TOPO_NONE;
	const struct topo_device *d;
	int socket, up;

	if (kind == BOX_SWITCH) {
		socket = t->switches[i].socket;
		up = t->switches[i].parent_switch;
	} else {
		d = kind == BOX_GPU ? &t->gpus[i] : &t->nics[i].dev;
		socket = d->socket;
		up = d->parent_switch;
	}
	if (up != below)
		return false;
	return parent->kind == BOX_SWITCH || socket == parent->index;
}

/* Lay out box @b's subtree from column @l->columns on; its centre. */
static double place(const struct topology *t, struct layout *l, unsigned b)
{
	const unsigned counts[] = { [BOX_SWITCH] = t->nswitches, [BOX_GPU] = t->ngpus,
				    [BOX_NIC] = t->nnics };
	double first = -1, last = -1;

	/* GPUs and NICs are leaves */
	for (enum box_kind k = BOX_SWITCH; l->box[b].kind <= BOX_SWITCH && k <= BOX_NIC; k++) {
		for (unsigned i = 0; i < counts[k]; i++) {
			struct box *c;

			if (!is_child(t, &l->box[b], k, (int)i) || l->n == MAX_BOXES)
				continue;
			c = &l->box[l->n];
			*c = (struct box){ k, (int)i, (int)b, l->box[b].depth + 1, 0 };
			if (c->depth > l->depth)
				l->depth = c->depth;
			c->x = place(t, l, l->n++);
			if (first < 0)
				first = c->x;
			last = c->x;
		}
	}
	l->box[b].x = first < 0 ? l->columns++ : (first + last) / 2;
	return l->box[b].x;
}

static void lay_out(const struct topology *t, struct layout *l)
{
	l->n = l->columns = l->depth = 0;
	for (unsigned s = 0; s < t->nsockets; s++) {
		unsigned b = l->n++;

		l->box[b] = (struct box){ BOX_SOCKET, (int)s, -1, 0, 0 };
		place(t, l, b);
	}
}

enum { COL_W = 104, BOX_W = 92, ROW_H = 84, BOX_H = 44, MARGIN = 12 };

static double box_left(const struct box *b)
{
	return MARGIN + b->x * COL_W + (COL_W - BOX_W) / 2.0;
}

static double box_top(const struct box *b)
{
	return MARGIN + 18 + b->depth * ROW_H;
}

/* GPU @g's nearest NIC, its path class and verdict at @level; staged
 * whatever the level where the run's path, @staged, never goes direct. */
static const char *gpu_line(const struct topology *t, int g, enum topo_path_type level,
			    const char *staged, bool *gdr, char *buf, size_t len)
{
	int nic = topo_nearest_nic(t, g);

	*gdr = false;
	if (nic < 0)
		return "no NIC";
	*gdr = !staged && gdr_allowed(t, g, nic, level, NULL, 0);
	snprintf(buf, len, "%s %s %s", t->nics[nic].dev.name,
		 topo_path_name(topo_gpu_nic_path(t, g, nic)), *gdr ? "GDR" : "staged");
	return buf;
}

static void draw_box(FILE *f, const struct topology *t, const struct box *b,
		     enum topo_path_type level, const char *staged)
{
	static const char *const fill[] = { "#dde6f5", "#eeeeee", NULL, "#d8e8f8" };
	char line2[96];
	const char *name, *sub, *colour = fill[b->kind], *cls;
	bool gdr;

	switch (b->kind) {
	case BOX_SOCKET:
		name = t->sockets[b->index].name;
		sub = "CPU socket";
		cls = "socket";
		break;
	case BOX_SWITCH:
		name = t->switches[b->index].name;
		sub = "PCIe switch";
		cls = "switch";
		break;
	case BOX_GPU:
		name = t->gpus[b->index].name;
		sub = gpu_line(t, b->index, level, staged, &gdr, line2, sizeof(line2));
		colour = gdr ? "#dff0d8" : "#fbe3c8";
		cls = gdr ? "gpu gdr" : "gpu staged";
		break;
	default:
		name = t->nics[b->index].dev.name;
		snprintf(line2, sizeof(line2), "NIC %.0f Gb/s", t->nics[b->index].line_rate * 8 / 1e9);
		sub = line2;
		cls = "nic";
	}
	fprintf(f, "<g class=\"%s\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%d\" rx=\"5\" "
		   "fill=\"%s\" stroke=\"#555\"/>",
		cls, box_left(b), box_top(b), BOX_W, BOX_H, colour);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-weight=\"bold\">",
		box_left(b) + BOX_W / 2.0, box_top(b) + 17);
	html_text(f, name);
	fprintf(f, "</text><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\">",
		box_left(b) + BOX_W / 2.0, box_top(b) + 34);
	html_text(f, sub);
	fputs("</text></g>\n", f);
}

/* A wired mesh: how many pairs have NVLinks, and the most a GPU has
 * (what its pairs add up to, not what links says it could hold). */
static const char *wired_text(const struct topology *t, char *buf, size_t len)
{
	const struct topo_gpu_fabric *g = &t->gpu_fabric;
	unsigned pairs = 0, most = 0;

	for (unsigned i = 0; i < t->ngpus; i++) {
		unsigned sum = topo_gpu_pair_links(t, i);

		for (unsigned j = i + 1; j < t->ngpus; j++)
			pairs += g->pair_links[i][j] > 0;
		most = sum > most ? sum : most;
	}
	snprintf(buf, len, "NVLink mesh, %u pair%s wired, up to %u link%s a GPU at %.4g GB/s each way",
		 pairs, pairs == 1 ? "" : "s", most, most == 1 ? "" : "s", g->link_bw / 1e9);
	return buf;
}

static const char *gpu_fabric_text(const struct topology *t, char *buf, size_t len)
{
	static const char *const kinds[] = { "PCIe peer-to-peer", "NVLink", "NVSwitch" };

	if (!topo_has_nvlink(t))
		return kinds[0];
	if (t->gpu_fabric.kind == TOPO_GPU_FABRIC_NVLINK && t->gpu_fabric.wired)
		return wired_text(t, buf, len);
	snprintf(buf, len, "%s, %.0f GB/s a GPU each way%s", kinds[t->gpu_fabric.kind],
		 t->gpu_fabric.bw / 1e9, t->gpu_fabric.nvls ? ", NVLink SHARP" : "");
	return buf;
}

static void draw_tree(FILE *f, const struct topology *t, enum topo_path_type level,
		      const char *staged)
{
	struct layout l;
	char buf[128];
	double w, h;

	lay_out(t, &l);
	w = 2 * MARGIN + (l.columns ? l.columns : 1) * COL_W;
	h = 2 * MARGIN + 18 + l.depth * ROW_H + BOX_H + 20;
	fprintf(f, "<figure class=\"cluster\"><svg xmlns=\"http://www.w3.org/2000/svg\" "
		   "viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" font-family=\"sans-serif\" "
		   "font-size=\"12\" role=\"img\">\n<title>",
		w, h, w);
	html_printf(f, "%s: one node's PCIe tree", t->name);
	fputs("</title>\n", f);
	for (unsigned i = 0; i < l.n; i++) {
		const struct box *b = &l.box[i], *p;

		if (b->parent < 0)
			continue;
		p = &l.box[b->parent];
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#777\"/>\n",
			box_left(p) + BOX_W / 2.0, box_top(p) + BOX_H, box_left(b) + BOX_W / 2.0,
			box_top(b));
	}
	for (unsigned i = 1; i < l.n; i++) {
		const struct box *a = &l.box[0], *b = &l.box[i];

		if (b->kind != BOX_SOCKET)
			continue;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1f4e9c\" "
			   "stroke-dasharray=\"6 3\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
			   "font-size=\"10\">inter-socket %.0f GB/s</text>\n",
			box_left(a) + BOX_W, box_top(a) + BOX_H / 2.0, box_left(b), box_top(b) + BOX_H / 2.0,
			(box_left(a) + BOX_W + box_left(b)) / 2, box_top(a) + BOX_H / 2.0 - 4,
			t->inter_socket.bw_up / 1e9);
	}
	for (unsigned i = 0; i < l.n; i++)
		draw_box(f, t, &l.box[i], level, staged);
	fprintf(f, "<text x=\"%d\" y=\"%.0f\" font-size=\"11\">", MARGIN, h - 10);
	html_printf(f, "GPU to GPU: %s", gpu_fabric_text(t, buf, sizeof(buf)));
	fputs("</text>\n</svg><figcaption>", f);
	if (staged)
		html_printf(f, "One node of %s: each GPU names its nearest NIC and the PCIe path "
			       "between them in NCCL's classes. This run's path, %s, stages every "
			       "transfer through host memory: GPUDirect RDMA is used by no pair "
			       "(orange), whatever GDR level %s would allow (below).",
			    t->name, staged, topo_path_name(level));
	else
		html_printf(f, "One node of %s: each GPU names its nearest NIC, the PCIe path "
			       "between them in NCCL's classes and whether GPUDirect RDMA is used "
			       "at GDR level %s (green: direct; orange: staged through host memory).",
			    t->name, topo_path_name(level));
	fputs("</figcaption></figure>\n", f);
}

/* Probe's GPU x NIC matrix: the path class of each pair, coloured by the
 * verdict at @level (staged throughout on a path, @staged, that never
 * goes direct), the reason it is staged in the cell's tooltip. */
static void draw_matrix(FILE *f, const struct topology *t, enum topo_path_type level,
			const char *staged)
{
	fputs("<table class=\"paths\"><tr><th>GPU</th>", f);
	for (unsigned n = 0; n < t->nnics; n++)
		html_cell(f, "th", "%s", t->nics[n].dev.name);
	fputs("</tr>\n", f);
	for (unsigned g = 0; g < t->ngpus; g++) {
		int near = topo_nearest_nic(t, (int)g);

		fputs("<tr>", f);
		html_cell(f, "th", "%s", t->gpus[g].name);
		for (unsigned n = 0; n < t->nnics; n++) {
			char why[256] = "";
			bool gdr = gdr_allowed(t, (int)g, (int)n, level, why, sizeof(why));

			if (staged && gdr)
				snprintf(why, sizeof(why), "the run's path, %s, never uses GPUDirect "
					 "RDMA (GDR level %s would allow this pair)", staged,
					 topo_path_name(level));
			else if (staged)
				snprintf(why + strlen(why), sizeof(why) - strlen(why),
					 "; and the run's path, %s, never uses GPUDirect RDMA", staged);
			gdr = gdr && !staged;

			fprintf(f, "<td class=\"%s%s\" title=\"", gdr ? "gdr" : "staged",
				(int)n == near ? " near" : "");
			html_text(f, gdr ? "GPUDirect RDMA" : why);
			fprintf(f, "\">%s %s</td>", topo_path_name(topo_gpu_nic_path(t, (int)g, (int)n)),
				gdr ? "GDR" : "staged");
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n<p>Bold: the GPU's nearest NIC. Hover a staged pair for the reason. Below: "
	      "what each GDR level (NCCL_NET_GDR_LEVEL) would make of each GPU and its nearest "
	      "NIC.</p>\n", f);
}

/* Probe's verdicts per GDR level, for each GPU with its nearest NIC:
 * which NCCL_NET_GDR_LEVEL would make it direct. */
static void draw_levels(FILE *f, const struct topology *t)
{
	static const enum topo_path_type levels[] = { TOPO_PATH_PIX, TOPO_PATH_PXB, TOPO_PATH_P2C,
						      TOPO_PATH_PHB, TOPO_PATH_SYS };
	const size_t nlevels = sizeof(levels) / sizeof(levels[0]);

	fputs("<table class=\"levels\"><tr><th>GPU-NIC</th><th>path</th>", f);
	for (size_t l = 0; l < nlevels; l++)
		html_cell(f, "th", "GDR level %s", topo_path_name(levels[l]));
	fputs("</tr>\n", f);
	for (unsigned g = 0; g < t->ngpus; g++) {
		int n = topo_nearest_nic(t, (int)g);

		if (n < 0)
			continue;
		fputs("<tr>", f);
		html_cell(f, "th", "%s-%s", t->gpus[g].name, t->nics[n].dev.name);
		html_cell(f, "td", "%s", topo_path_name(topo_gpu_nic_path(t, (int)g, n)));
		for (size_t l = 0; l < nlevels; l++) {
			bool gdr = gdr_allowed(t, (int)g, n, levels[l], NULL, 0);

			fprintf(f, "<td class=\"%s\">%s</td>", gdr ? "gdr" : "staged", gdr ? "direct" : "staged");
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* Between the nodes: the switches the file names, or its crossbar. */
static void describe_fabric(FILE *f, const struct topology *t)
{
	const struct topo_fabric *fab = &t->fabric;

	fputs("<p>", f);
	if (!fab->tiers)
		html_printf(f, "Between nodes: %u switch hop%s of %.3g us each, each NIC's port "
			       "divided by an oversubscription of %.3g.",
			    fab->hops, fab->hops == 1 ? "" : "s", fab->switch_latency * 1e6,
			    fab->oversubscription >= 1 ? fab->oversubscription : 1);
	else
		html_printf(f, "Between nodes: a %s-tier fabric, %s; leaves of %u ports (%u up), "
			       "spines of %u ports%s; flows spread over equal-cost uplinks by a hash "
			       "seeded %llu (docs/model.md).",
			    fab->tiers == 3 ? "three" : "two",
			    fab->attach == TOPO_ATTACH_RAIL ? "rail-optimised (NIC k of each node on leaf k)"
							    : "each node's NICs on one leaf",
			    fab->leaf.ports, fab->leaf.uplinks, fab->spine.ports,
			    fab->tiers == 3 ? ", a core tier above" : "",
			    (unsigned long long)fab->ecmp_seed);
	fputs("</p>\n", f);
}

void report_cluster(FILE *f, const struct topology *t, enum topo_path_type level,
		    const char *staged_path)
{
	draw_tree(f, t, level, staged_path);
	describe_fabric(f, t);
	draw_matrix(f, t, level, staged_path);
	draw_levels(f, t);
}
