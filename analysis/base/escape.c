// SPDX-License-Identifier: GPL-2.0
/*
 * Names from runs and histories (variants, points, nights, paths, meta.json
 * strings) on their way into a gnuplot script, an HTML page or a terminal:
 * each output has one function here, and text from input reaches it only
 * through that function, as data, never as code.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

/*
 * A gnuplot single-quoted string. Inside one gnuplot expands no macro
 * (@name), runs no `command` and knows one escape, '' for '. The line is
 * the unit: a newline would end the command and start another, and a
 * backslash before one would join the next line into the string, so
 * every control character becomes '?'. The string is always closed on
 * the same line, so a trailing backslash cannot reach the line's end.
 */
void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; s && *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
	}
	fputc('\'', f);
}

/* gp_str into a new string, for commands built with printf. */
char *gp_quote(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		die_input("out of memory");
	gp_str(f, s);
	if (fclose(f))
		die_input("out of memory");
	return buf;
}

/* HTML text or an attribute value in double or single quotes. */
void html_esc(FILE *f, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
}

/*
 * A relative link to path (segments joined by '/'): "./" first and every
 * byte but [A-Za-z0-9._~-] and '/' percent-encoded, so no name can be
 * read as a scheme ("javascript:..."), a host ("//x") or a query, and the
 * result needs no HTML escaping.
 */
void html_href(FILE *f, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)path;

	fputs("./", f);
	for (; *p; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("._~-/", *p))
			fputc(*p, f);
		else
			fprintf(f, "%%%c%c", hex[*p >> 4], hex[*p & 15]);
}

/*
 * A text stream that a terminal can show: control characters (C0 but tab
 * and newline, DEL, C1 as UTF-8 U+0080..U+009F or as a stray byte
 * 0x80..0x9f that 8-bit terminals take for CSI and the like) come out as
 * \xNN, everything else as it is. Escape sequences from meta.json or a
 * result then reach report.txt and stdout as text, whatever printed them.
 */
struct tsafe {
	FILE *under;
	int lead;		/* a 0xc2 held until the next byte says */
	int cont;		/* continuation bytes a sequence still has */
};

static void hexbyte(FILE *f, int c)
{
	fprintf(f, "\\x%02x", c);
}

static ssize_t tsafe_write(void *cookie, const char *buf, size_t n)
{
	struct tsafe *t = cookie;
	size_t i;

	for (i = 0; i < n; i++) {
		int c = (unsigned char)buf[i];

		if (t->lead) {
			t->lead = 0;
			if (c >= 0x80 && c <= 0x9f) {	/* U+0080..U+009F */
				hexbyte(t->under, 0xc2);
				hexbyte(t->under, c);
				continue;
			}
			fputc(0xc2, t->under);
			t->cont = 1;
		}
		if (c >= 0x80 && c <= 0xbf) {
			if (t->cont) {
				t->cont--;
				fputc(c, t->under);
			} else if (c <= 0x9f) {
				hexbyte(t->under, c);
			} else {
				fputc(c, t->under);
			}
			continue;
		}
		t->cont = 0;
		if (c == 0xc2)
			t->lead = 1;
		else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
			hexbyte(t->under, c);
		else {
			t->cont = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0;
			fputc(c, t->under);
		}
	}
	return ferror(t->under) ? -1 : (ssize_t)n;
}

static int tsafe_close(void *cookie)
{
	struct tsafe *t = cookie;
	int rc;

	if (t->lead)
		fputc(0xc2, t->under);
	rc = fflush(t->under) ? -1 : 0;
	free(t);
	return rc;
}

/* Writes to the result go to under, made safe; fclose leaves under open. */
FILE *text_safe(FILE *under)
{
	static const cookie_io_functions_t io = { .write = tsafe_write,
						  .close = tsafe_close };
	struct tsafe *t = xcalloc(1, sizeof(*t));
	FILE *f;

	t->under = under;
	f = fopencookie(t, "w", io);
	if (!f)
		die_input("out of memory");
	return f;
}
