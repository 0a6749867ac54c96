/* SPDX-License-Identifier: MIT */
/*
 * nccl_tests_read: what the text (nccl_tests_text.c) and JSON
 * (nccl_tests_json.c) readers share, so that both formats obey the same
 * rules about rows, devices and the collective. Not a public interface.
 */
#ifndef GDRLAB_NCCL_TESTS_READ_H
#define GDRLAB_NCCL_TESTS_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "nccl_tests.h"

struct nt_coll;

/* The fields of a row that nt_add_row checks, for messages. */
enum nt_field {
	NT_F_SIZE,
	NT_F_COUNT,
	NT_F_TYPE,
	NT_F_REDOP,
	NT_F_ROOT,
	NT_F_N,
};

/* Where a row's fields were written. */
struct nt_at {
	unsigned line;
	unsigned col[NT_F_N]; /* 0 when unknown */
	const char *prefix;   /* before the field's name in the key: "results[3]." */
	long index;	      /* JSON: the results entry; -1 in text */
};

/* Where an earlier row was: a line of text or a results entry. */
struct nt_place {
	unsigned line;
	long index;
};

/* State of one load, from the first line to the last. */
struct nt_reader {
	const char *name; /* for messages */
	struct nccl_tests_file *f;
	size_t cap;                 /* rows allocated */
	const struct nt_coll *coll; /* the collective, once known */
	uint64_t factor;  /* size / (count x type size), from the first row */
	struct nt_place first, last; /* of the first and last rows kept */
	bool skipped_empty;         /* a 0-byte row was left out */
	unsigned ndev;    /* devices listed, every group's */
	unsigned dev_line; /* where the first was listed */
	long long group0; /* rank 0's group; -1 when the format has none */
	char **hosts;     /* owned: one name per run of rank 0's group's
			   * devices on a host */
	size_t nhost_runs, hosts_cap;
	long long *groups; /* owned: one per run of devices in a group */
	size_t ngroup_runs, groups_cap;
	struct nt_rank_dev *rank_devs; /* owned: rank 0's group's ranks */
	size_t nrank_devs, rank_devs_cap;
};

/* A rank of rank 0's group: its host (one of nt_reader.hosts) and device
 * (-1 where the format gives none). */
struct nt_rank_dev {
	const char *host;
	long long device;
};

void nt_init(struct nt_reader *r, const char *name, struct nccl_tests_file *f,
	     enum nccl_tests_format format);

/* Take the collective from a program name ("/x/all_reduce_perf_mpi"). */
void nt_set_program(struct nt_reader *r, const char *program);
/* The NCCL the run used, NCCL_VERSION_CODE (22703): the text's
 * nccl-library=, the JSON's nccl_version. A number that is no version
 * code is noise, left unread. */
void nt_set_nccl_version(struct nt_reader *r, unsigned long long code);

/* Why a rank listed twice is refused: the end of its message. */
#define NT_SECOND_RUN \
	"a second run, or the 1-rank runs of an nccl-tests built without MPI and started as several processes; one run per file"

/* Where a device was listed, for messages. */
struct nt_dev_at {
	unsigned line, col;
	const char *key;
};

/*
 * @n devices of the "Using devices" list or config.devices, ranks @rank
 * to @rank + n - 1 in rank order, on @host in group @group (-1 where the
 * format gives none), devices @device on (-1 where it gives none); @rank
 * is -1 where the format gives none.
 */
int nt_add_devices(struct nt_reader *r, long long rank, unsigned n,
		   long long group, const char *host, long long device, const char *gpu,
		   const struct nt_dev_at *at, struct diag *d);

/*
 * Check @row against the file's rules (known type, size = count x type
 * size x the collective's factor, one series, ascending sizes) and append
 * it; 0-byte rows are dropped here.
 */
int nt_add_row(struct nt_reader *r, const struct nccl_tests_row *row,
	       const struct nt_at *at, struct diag *d);

/* Count the hosts and groups; on @err (or a later failure) empty the file. */
int nt_finish(struct nt_reader *r, int err);

/* "collective" from "/path/collective_perf[_mpi]", in @out; "" if none. */
void nt_program_op(const char *program, char *out, size_t n);

int nt_load_text(struct nt_reader *r, const char *buf, size_t len,
		 struct diag *d);
int nt_load_json(struct nt_reader *r, const char *buf, size_t len,
		 struct diag *d);

#endif
