/* SPDX-License-Identifier: MIT */
/*
 * The pieces of gdrlab report's page: escaped text, the page's frame and
 * style, an SVG inlined from a file. One self-contained file: no script,
 * no link to fetch, so it opens offline and from a mail attachment.
 */
#ifndef GDRLAB_REPORT_HTML_H
#define GDRLAB_REPORT_HTML_H

#include <stdio.h>

/* @s with &, <, >, " and ' escaped; control characters but tab and
 * newline dropped. */
void html_text(FILE *f, const char *s);

/* printf into the page, the result escaped as html_text. */
void html_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* <!doctype html> to <body>, the style sheet inlined; </body></html>. */
void html_begin(FILE *f, const char *title);
void html_end(FILE *f);

/* One <th> or <td> a call, escaped. */
void html_cell(FILE *f, const char *tag, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A box saying what went wrong, instead of what could not be drawn. */
void html_error(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The SVG file @path copied into the page from its <svg> element on (its
 * XML prologue dropped), every id and reference to one prefixed with
 * @prefix so that several gnuplot drawings in one page keep their own.
 * 0 or -errno.
 */
int html_inline_svg(FILE *f, const char *path, const char *prefix);

#endif
