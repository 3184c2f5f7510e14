// SPDX-License-Identifier: GPL-2.0
/*
 * pngstat: check that a PNG decodes and say what is in it, for tests of
 * rendered pages: "<width> <height> <distinct colours> <colourful pixels>".
 * A colourful pixel has channels at least 64 apart: text and page chrome
 * are grey, chart lines and bars are not. 8-bit RGB/RGBA, no interlace
 * (what Chromium and cairo write); anything else is refused with exit 2.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void die(const char *path, const char *why)
{
	fprintf(stderr, "pngstat: %s: %s\n", path, why);
	exit(2);
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

static void unfilter(unsigned char *row, const unsigned char *prev, int type,
		     size_t len, int bpp)
{
	size_t i;

	for (i = 0; i < len; i++) {
		int a = i >= (size_t)bpp ? row[i - bpp] : 0;
		int b = prev ? prev[i] : 0;
		int c = prev && i >= (size_t)bpp ? prev[i - bpp] : 0;

		switch (type) {
		case 1: row[i] += a; break;
		case 2: row[i] += b; break;
		case 3: row[i] += (a + b) / 2; break;
		case 4: row[i] += paeth(a, b, c); break;
		}
	}
}

/* Distinct colours, counted in a 2^24-bit set of RGB values. */
static uint8_t seen[1 << 21];

int main(int argc, char **argv)
{
	unsigned char *buf, *idat = NULL, *raw, *row, *prev = NULL;
	size_t n, cap = 1 << 20, ilen = 0, stride;
	uint32_t w = 0, h = 0, y, x;
	unsigned long distinct = 0, colourful = 0;
	int bpp = 0;
	uLongf rawlen;
	FILE *f;

	if (argc != 2)
		die("usage", "pngstat FILE.png");
	f = fopen(argv[1], "rb");
	if (!f)
		die(argv[1], "cannot open");
	buf = malloc(cap);
	for (n = 0; (x = fread(buf + n, 1, cap - n, f)) > 0;) {
		n += x;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (n < 8 || memcmp(buf, "\x89PNG\r\n\x1a\n", 8))
		die(argv[1], "not a PNG (bad signature)");
	idat = malloc(n);
	for (size_t p = 8; p + 12 <= n;) {
		uint32_t len = be32(buf + p);
		const unsigned char *t = buf + p + 4, *d = buf + p + 8;

		if (p + 12 + len > n)
			die(argv[1], "truncated chunk");
		if (!memcmp(t, "IHDR", 4)) {
			w = be32(d);
			h = be32(d + 4);
			if (d[8] != 8 || (d[9] != 2 && d[9] != 6) || d[12])
				die(argv[1], "not 8-bit RGB/RGBA non-interlaced");
			bpp = d[9] == 6 ? 4 : 3;
		} else if (!memcmp(t, "IDAT", 4)) {
			memcpy(idat + ilen, d, len);
			ilen += len;
		}
		p += 12 + len;
	}
	if (!w || !h || !ilen)
		die(argv[1], "no IHDR or no image data");
	stride = (size_t)w * bpp;
	rawlen = (stride + 1) * h;
	raw = malloc(rawlen);
	if (uncompress(raw, &rawlen, idat, ilen) != Z_OK ||
	    rawlen != (stride + 1) * h)
		die(argv[1], "image data does not inflate to its size");
	for (y = 0; y < h; y++) {
		row = raw + y * (stride + 1) + 1;
		if (row[-1] > 4)
			die(argv[1], "bad filter type");
		unfilter(row, prev, row[-1], stride, bpp);
		prev = row;
		for (x = 0; x < w; x++) {
			unsigned char *px = row + (size_t)x * bpp;
			uint32_t rgb = px[0] << 16 | px[1] << 8 | px[2];
			int mx = px[0], mn = px[0], k;

			for (k = 1; k < 3; k++) {
				mx = px[k] > mx ? px[k] : mx;
				mn = px[k] < mn ? px[k] : mn;
			}
			colourful += mx - mn >= 64;
			if (!(seen[rgb >> 3] & 1 << (rgb & 7))) {
				seen[rgb >> 3] |= 1 << (rgb & 7);
				distinct++;
			}
		}
	}
	printf("%u %u %lu %lu\n", w, h, distinct, colourful);
	return 0;
}
