/* SPDX-License-Identifier: MIT */
/* The pieces of gdrlab report's page (report_html.h). */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report_html.h"
#include "report_page.h"

void html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
				fputc(*s, f);
		}
	}
}

static void html_vprintf(FILE *f, const char *fmt, va_list ap)
{
	char buf[2048];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	html_text(f, buf);
}

void html_printf(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	html_vprintf(f, fmt, ap);
	va_end(ap);
}

void html_cell(FILE *f, const char *tag, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "<%s>", tag);
	va_start(ap, fmt);
	html_vprintf(f, fmt, ap);
	va_end(ap);
	fprintf(f, "</%s>", tag);
}

void html_error(FILE *f, const char *fmt, ...)
{
	va_list ap;

	fputs("<p class=\"error\">", f);
	va_start(ap, fmt);
	html_vprintf(f, fmt, ap);
	va_end(ap);
	fputs("</p>\n", f);
}

/* Plain and printable: what a print or a dark-mode reader keeps legible. */
static const char style[] =
	"body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;"
	"padding:0 1em;color:#1b1b1b;background:#fff}\n"
	"h1{font-size:1.6em;margin-bottom:.2em}h2{margin-top:1.8em;border-bottom:1px solid #ccc}\n"
	"p.lead{font-size:1.15em}.answer{font-size:1.05em;background:#eef6ee;padding:.5em .8em;"
	"border-left:4px solid #2a7a2a}ul.answer{padding-left:2em}\n"
	"p.error{background:#fdecea;border-left:4px solid #b3261e;padding:.5em .8em;"
	"white-space:pre-wrap}\n"
	"table{border-collapse:collapse;margin:.8em 0;font-size:.92em}\n"
	"th,td{border:1px solid #ccc;padding:.2em .55em;text-align:left}\n"
	"td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
	"td.gdr{background:#dff0d8}td.staged{background:#fbe3c8}td.near{font-weight:bold}\n"
	"figure{margin:1em 0}figure svg{max-width:100%;height:auto;border:1px solid #eee}\n"
	"figure image{image-rendering:pixelated}\n" /* a heat map's cells, not a blur */
	"figcaption{color:#555;font-size:.9em}\n"
	"code{background:#f4f4f4;padding:0 .25em}footer{margin-top:3em;color:#777;font-size:.85em}\n";

void html_begin(FILE *f, const char *title)
{
	fputs("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	      f);
	html_text(f, title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
}

void html_end(FILE *f)
{
	fputs("</body>\n</html>\n", f);
}

/* Where @s (at an attribute value or url() argument) starts an id or a
 * reference to one: the length of what comes before the name, else 0. */
static size_t id_mark(const char *s)
{
	static const char *const marks[] = { "id=\"", "id='", "href=\"#", "href='#", "url(#" };

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		size_t n = strlen(marks[i]);

		if (!strncmp(s, marks[i], n))
			return n;
	}
	return 0;
}

int html_inline_svg(FILE *f, const char *path, const char *prefix)
{
	FILE *in = fopen(path, "r");
	char *buf, *s;
	long len;
	int err = 0;

	if (!in)
		return -errno;
	if (fseek(in, 0, SEEK_END) || (len = ftell(in)) < 0 || fseek(in, 0, SEEK_SET)) {
		fclose(in);
		return -EIO;
	}
	buf = malloc((size_t)len + 1);
	if (!buf || fread(buf, 1, (size_t)len, in) != (size_t)len) {
		free(buf);
		fclose(in);
		return buf ? -EIO : -ENOMEM;
	}
	fclose(in);
	buf[len] = '\0';
	s = strstr(buf, "<svg");
	if (!s)
		err = -EINVAL;
	while (s && *s) {
		size_t n = id_mark(s);

		if (n) {
			/* "id=" must start an attribute, not end "grid=" */
			bool attr = n > 4 || (s > buf && isspace((unsigned char)s[-1]));

			fwrite(s, 1, n, f);
			if (attr)
				fputs(prefix, f);
			s += n;
			continue;
		}
		fputc(*s++, f);
	}
	free(buf);
	return err;
}

const char *report_num(json_t *v, double scale, char *buf, size_t len)
{
	if (!json_is_number(v))
		return "-";
	snprintf(buf, len, "%.4g", json_number_value(v) * scale);
	return buf;
}
