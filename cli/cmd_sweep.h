/* SPDX-License-Identifier: MIT */
#ifndef GDRLAB_CMD_SWEEP_H
#define GDRLAB_CMD_SWEEP_H

/* gdrlab sweep FILE: run a sweep file's points in parallel processes. */
int cmd_sweep(int argc, char **argv);
/* gdrlab plot (cmd_plot.c): a sweep plan's answer drawn by gnuplot. */
int cmd_plot(int argc, char **argv);

/* gdrlab report (cmd_report.c): one HTML page of a run, compare or sweep. */
int cmd_report(int argc, char **argv);

#endif
