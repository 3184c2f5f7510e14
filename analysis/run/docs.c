// SPDX-License-Identifier: GPL-2.0
/*
 * A run directory's result documents found, named and checked: which
 * variant directory, which point and iteration each file is, before
 * load.c reads their metrics. Apart from load.c because naming and
 * checking files is one job and turning them into cells another.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"

static void docs_add(struct docs *ds, char *path, char *variant, char *label,
		     json_t *j)
{
	if (ds->n == ds->cap) {
		ds->cap = ds->cap ? 2 * ds->cap : 64;
		ds->d = realloc(ds->d, ds->cap * sizeof(*ds->d));
		if (!ds->d)
			die_input("out of memory");
	}
	ds->d[ds->n++] = (struct doc){ path, variant, label, j, -1, -1, NULL,
				       NULL };
}

/* "p001-dio-i2.result.json" -> "p001-dio" */
static char *point_label(const char *file)
{
	char *l = xstrdup(file), *i;

	l[strlen(l) - strlen(".result.json")] = 0;
	i = strrchr(l, '-');
	if (i && i[1] == 'i' && strspn(i + 2, "0123456789") == strlen(i + 2)
	    && i[2])
		*i = 0;
	/* "p001-dio-cost": the cost-mode results of point p001-dio */
	i = strrchr(l, '-');
	if (i && !strcmp(i, "-cost"))
		*i = 0;
	return l;
}

/*
 * "<point>-i<N>.result.json": names end up in chart file names, gnuplot
 * scripts and HTML, and N is the document's iteration.
 */
static char *file_label(const char *p, const char *file, json_t *j)
{
	char *label = point_label(file), *end;
	const char *i = file + strlen(file) - strlen(".result.json");
	long n;

	while (i > file && i[-1] >= '0' && i[-1] <= '9')
		i--;
	n = strtol(i, &end, 10);
	if (i < file + 3 || strncmp(i - 2, "-i", 2) || *i < '1' || *i > '9' ||
	    !name_ok(label, "-.") || !isalnum((unsigned char)*label))
		die_input("%s: file name is not <point>-i<N>.result.json with "
			  "<point> of [A-Za-z0-9_.-] starting with a letter or "
			  "digit", p);
	if (n != json_integer_value(json_object_get(j, "iteration")))
		die_input("%s: iteration %lld, but the file name says i%ld",
			  p, (long long)json_integer_value(
				json_object_get(j, "iteration")), n);
	return label;
}

void load_docs(struct run *r, struct docs *ds)
{
	char **vdirs, **files;
	int nv, nf, i, k, *nres;

	vdirs = list_dir(r->dir, true, NULL, &nv);
	nres = xcalloc(nv, sizeof(*nres));
	for (i = 0; i < nv; i++) {
		char *vd = xasprintf("%s/%s", r->dir, vdirs[i]);

		files = list_dir(vd, false, ".result.json", &nf);
		nres[i] = nf;
		if (nf && !name_ok(vdirs[i], "-.+"))
			die_input("%s: a variant directory name is 1-64 of "
				  "[A-Za-z0-9_.+-]", vd);
		for (k = 0; k < nf; k++) {
			char *p;
			json_t *j;
			const char *kv;

			/* the stats boot's: its counters cost time on every
			 * acquisition, so its rates are no cell's (waits.c) */
			if (stats_boot_file(files[k])) {
				free(files[k]);
				continue;
			}
			p = xasprintf("%s/%s", vd, files[k]);
			j = load_result(p);
			kv = json_string_value(json_object_get(
				json_object_get(j, "kernel"), "variant"));
			if (json_is_string(json_object_get(json_object_get(j,
					"env"), "boot")))
				die_input("%s: env.boot \"%s\" names a stats "
					  "boot, whose rates are never "
					  "compared (accepted: a stats boot's "
					  "result as <point>-stats-i<N>"
					  ".result.json)", p,
					  json_string_value(json_object_get(
					  json_object_get(j, "env"), "boot")));
			if (kv && strcmp(kv, vdirs[i]))
				die_input("%s: kernel.variant \"%s\" does not "
					  "match its directory \"%s\"",
					  p, kv, vdirs[i]);
			docs_add(ds, p, xstrdup(vdirs[i]),
				 file_label(p, files[k], j), j);
			free(files[k]);
		}
		free(files);
		free(vd);
	}
	if (!ds->n)
		die_input("%s: no <variant>/*.result.json files (expected a "
			  "run directory results/<run>)", r->dir);
	rl_input = r->dir;
	meta_check_variants(r, vdirs, nres, nv);
	for (i = 0; i < nv; i++)
		free(vdirs[i]);
	free(vdirs);
	free(nres);
}
