/* SPDX-License-Identifier: MIT */
/*
 * diag: one error convention for the whole project.
 *
 * Functions that can fail return 0 or a negative errno. When the failure is
 * the user's (a bad file, a bad option) they also fill a struct diag with a
 * one-line message in the compiler style "file:line:col: key: what is wrong",
 * which main() prints before exiting with status 2.
 */
#ifndef GDRLAB_DIAG_H
#define GDRLAB_DIAG_H

#include <stdarg.h>
#include <stddef.h>

#define DIAG_MSG_MAX 512

struct diag {
	char msg[DIAG_MSG_MAX];
};

/*
 * Fill @d (when not NULL) with a message and return @err, so a caller can
 * write `return diag_set(d, -EINVAL, "%s:%u: ...", ...);`.
 */
int diag_set(struct diag *d, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Same, with the "file:line:col: key: " prefix built for the caller. */
int diag_at(struct diag *d, int err, const char *file, unsigned line,
	    unsigned col, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
int diag_vat(struct diag *d, int err, const char *file, unsigned line,
	     unsigned col, const char *key, const char *fmt, va_list ap)
	__attribute__((format(printf, 7, 0)));

/*
 * @s copied into @buf (@n bytes) for a message: control bytes become '?'
 * and a long string is cut with "...", so a hostile value can neither
 * break the one-line rule nor flood it. @buf may be @s itself (each byte
 * is read before it is written). Returns @buf.
 */
const char *diag_printable(const char *s, char *buf, size_t n);

#endif
