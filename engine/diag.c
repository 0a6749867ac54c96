/* SPDX-License-Identifier: MIT */
#include "diag.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

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

	va_start(ap, fmt);
	err = diag_vat(d, err, file, line, col, key, fmt, ap);
	va_end(ap);
	return err;
}

int diag_vat(struct diag *d, int err, const char *file, unsigned line,
	     unsigned col, const char *key, const char *fmt, va_list ap)
{
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
	vsnprintf(d->msg + n, sizeof(d->msg) - n, fmt, ap);
	return err;
}

const char *diag_printable(const char *s, char *buf, size_t n)
{
	size_t i;

	for (i = 0; s[i] && i + 4 < n; i++) {
		bool ctl = (unsigned char)s[i] < 0x20 || s[i] == 0x7f;

		buf[i] = ctl ? '?' : s[i];
	}
	if (s[i]) {
		memcpy(buf + i, "...", 3);
		i += 3;
	}
	buf[i] = '\0';
	return buf;
}
