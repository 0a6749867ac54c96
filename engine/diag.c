/* SPDX-License-Identifier: MIT */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>

int diag_set(struct diag *d, int err, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return err;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	return err;
}

int diag_at(struct diag *d, int err, const char *file, unsigned line,
	    unsigned col, const char *key, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!d)
		return err;
	if (col)
		n = snprintf(d->msg, sizeof(d->msg), "%s:%u:%u: %s: ", file,
			     line, col, key);
	else
		n = snprintf(d->msg, sizeof(d->msg), "%s:%u: %s: ", file, line,
			     key);
	if (n < 0 || (size_t)n >= sizeof(d->msg))
		return err; /* the prefix alone fills it: keep what fits */
	va_start(ap, fmt);
	vsnprintf(d->msg + n, sizeof(d->msg) - n, fmt, ap);
	va_end(ap);
	return err;
}
