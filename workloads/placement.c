// SPDX-License-Identifier: GPL-2.0
/*
 * Thread and memory placement (--placement, --membind), and the record of
 * where every worker ran (env.placement). Built on hwloc, so a 2-socket
 * server, a guest and a synthetic topology (HWLOC_SYNTHETIC,
 * HWLOC_XMLFILE) are one code path; on a topology that is not this
 * machine nothing is bound and the record says so.
 *
 * pack:   package 0's cores first (one thread per core, then the second
 *         hardware thread of each core), then package 1, ...
 * spread: thread i on package i % P, filling each package as pack does
 * list:   thread i on the (i % n)-th CPU of the list (OS numbers)
 *
 * With more threads than places the order wraps around.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <hwloc.h>
#include <jansson.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "rlwork.h"

enum policy { POL_PIN, POL_PACK, POL_SPREAD, POL_LIST };
static const char *const policy_names[] = { "pin", "pack", "spread", "list" };

struct placement {
	hwloc_topology_t topo;
	enum policy policy;
	const char *membind;		/* "none", "local", "interleave" */
	bool bound;			/* the topology is this machine's */
	unsigned int npkg;
	hwloc_obj_t **pkg_pus;		/* per package, in pack order */
	unsigned int *pkg_n;
	hwloc_obj_t *order;		/* pack order, or the list */
	unsigned int n;
	int *ran_on;			/* sched_getcpu() after binding */
	unsigned int nthreads;
};

/* append the PUs of the cores under obj: first PU of every core, then the second... */
static void add_cores(hwloc_topology_t t, hwloc_obj_t obj, hwloc_obj_t *out,
		      unsigned int *n)
{
	int ncores = hwloc_get_nbobjs_inside_cpuset_by_type(t, obj->cpuset,
							    HWLOC_OBJ_CORE);
	unsigned int k, added;
	hwloc_obj_t core, pu;
	int c;

	if (ncores <= 0) {	/* no core level: the PUs themselves */
		pu = NULL;
		while ((pu = hwloc_get_next_obj_inside_cpuset_by_type(t,
				obj->cpuset, HWLOC_OBJ_PU, pu)))
			out[(*n)++] = pu;
		return;
	}
	for (k = 0;; k++) {
		added = 0;
		for (c = 0; c < ncores; c++) {
			core = hwloc_get_obj_inside_cpuset_by_type(t,
					obj->cpuset, HWLOC_OBJ_CORE, c);
			pu = core ? hwloc_get_obj_inside_cpuset_by_type(t,
					core->cpuset, HWLOC_OBJ_PU, k) : NULL;
			if (pu) {
				out[(*n)++] = pu;
				added++;
			}
		}
		if (!added)
			return;
	}
}

static int build_order(struct placement *p)
{
	hwloc_topology_t t = p->topo;
	int npu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
	int npkg = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
	unsigned int i;
	hwloc_obj_t obj;

	if (npu <= 0)
		return -1;
	p->npkg = npkg > 0 ? npkg : 1;
	p->order = calloc(npu, sizeof(*p->order));
	p->pkg_pus = calloc(p->npkg, sizeof(*p->pkg_pus));
	p->pkg_n = calloc(p->npkg, sizeof(*p->pkg_n));
	if (!p->order || !p->pkg_pus || !p->pkg_n)
		return -1;
	for (i = 0; i < p->npkg; i++) {
		obj = npkg > 0 ? hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, i)
			       : hwloc_get_root_obj(t);
		p->pkg_pus[i] = calloc(npu, sizeof(**p->pkg_pus));
		if (!p->pkg_pus[i])
			return -1;
		add_cores(t, obj, p->pkg_pus[i], &p->pkg_n[i]);
		memcpy(p->order + p->n, p->pkg_pus[i],
		       p->pkg_n[i] * sizeof(*p->order));
		p->n += p->pkg_n[i];
	}
	return p->n ? 0 : -1;
}

/* "0,2,4-7": OS CPU numbers, each one a PU of the topology */
static int parse_list(struct placement *p, const char *s, char *err,
		      size_t len)
{
	int npu = hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_PU);
	const char *q = s;
	unsigned long a, b, c;
	hwloc_obj_t pu;
	char *end;

	p->order = calloc(4096, sizeof(*p->order));
	if (!p->order)
		return snprintf(err, len, "--placement: out of memory"), -1;
	do {
		errno = 0;
		a = strtoul(q, &end, 10);
		if (end == q || errno || *q == '-' || *q == '+')
			goto syntax;
		b = a;
		if (*end == '-') {
			q = end + 1;
			b = strtoul(q, &end, 10);
			if (end == q || errno || b < a || *q == '-' || *q == '+')
				goto syntax;
		}
		for (c = a; c <= b; c++) {
			pu = c <= 1u << 20 ? hwloc_get_pu_obj_by_os_index(p->topo, c)
					   : NULL;
			if (!pu)
				return snprintf(err, len,
					"--placement: CPU %lu is not in this machine's topology (%d CPUs; see lstopo)",
					c, npu), -1;
			if (p->n == 4096)
				return snprintf(err, len,
					"--placement: more than 4096 CPUs in the list"), -1;
			p->order[p->n++] = pu;
		}
		q = end + 1;
	} while (*end == ',');
	if (*end)
		goto syntax;
	return 0;
syntax:
	return snprintf(err, len,
			"--placement: 'list:%s' is not a CPU list (accepted: list:<cpus>, e.g. list:0,2,4-7)",
			s), -1;
}

int placement_check(struct rl_run *r, char *err, size_t len)
{
	const char *spec = r->o.placement, *mb = r->o.membind;
	struct placement *p;

	if (spec && r->o.pin)
		return snprintf(err, len,
				"--pin and --placement exclude each other (list:<cpus> names the CPUs)"), -1;
	if (mb && strcmp(mb, "local") && strcmp(mb, "interleave"))
		return snprintf(err, len,
				"--membind: '%s' is not local or interleave", mb), -1;
	if (mb && !spec)
		return snprintf(err, len,
				"--membind needs --placement (the node of each thread)"), -1;
	if (spec && strcmp(spec, "pack") && strcmp(spec, "spread") &&
	    strncmp(spec, "list:", 5))
		return snprintf(err, len,
				"--placement: '%s' is not pack, spread or list:<cpus> (e.g. list:0,2,4-7)",
				spec), -1;
	if (!spec && !r->o.pin)
		return 0;

	p = calloc(1, sizeof(*p));
	if (!p)
		return snprintf(err, len, "--placement: out of memory"), -1;
	r->place = p;
	p->membind = mb ? mb : "none";
	if (hwloc_topology_init(&p->topo) || hwloc_topology_load(p->topo)) {
		p->topo = NULL;
		return snprintf(err, len,
				"--placement: hwloc cannot read the topology: %s",
				strerror(errno)), -1;
	}
	p->bound = hwloc_topology_is_thissystem(p->topo);
	if (!spec) {
		p->policy = POL_PIN;	/* --pin: the CPUs main.c found */
		return 0;
	}
	if (!strncmp(spec, "list:", 5)) {
		p->policy = POL_LIST;
		return parse_list(p, spec + 5, err, len);
	}
	p->policy = strcmp(spec, "pack") ? POL_SPREAD : POL_PACK;
	if (build_order(p))
		return snprintf(err, len,
				"--placement: the topology has no CPUs hwloc can order"), -1;
	return 0;
}

static hwloc_obj_t pu_of(const struct rl_run *r, unsigned int i)
{
	const struct placement *p = r->place;
	unsigned int k;

	switch (p->policy) {
	case POL_PIN:
		return hwloc_get_pu_obj_by_os_index(p->topo,
						    r->cpus[i % r->ncpus]);
	case POL_SPREAD:
		k = i % p->npkg;
		return p->pkg_pus[k][(i / p->npkg) % p->pkg_n[k]];
	default:
		return p->order[i % p->n];
	}
}

static int node_of(const struct placement *p, hwloc_obj_t pu)
{
	hwloc_obj_t node = NULL;

	if (!pu)
		return -1;
	while ((node = hwloc_get_next_obj_by_type(p->topo, HWLOC_OBJ_NUMANODE,
						  node)))
		if (hwloc_bitmap_isset(node->cpuset, pu->os_index))
			return node->os_index;
	return -1;
}

static int pkg_of(const struct placement *p, hwloc_obj_t pu)
{
	hwloc_obj_t pkg = pu ? hwloc_get_ancestor_obj_by_type(p->topo,
					HWLOC_OBJ_PACKAGE, pu) : NULL;

	return pkg ? (int)pkg->logical_index : -1;
}

/* Before the threads start: where each goes, printed for the log. */
int placement_start(struct rl_run *r)
{
	struct placement *p = r->place;
	hwloc_obj_t pu;
	unsigned int i;

	if (!p)
		return 0;
	p->nthreads = r->nthreads;
	p->ran_on = calloc(r->nthreads, sizeof(*p->ran_on));
	if (!p->ran_on)
		return -1;
	fprintf(r->info, "rlwork: placement %s, membind %s%s:",
		policy_names[p->policy], p->membind,
		p->bound ? "" : " (not this machine's topology: nothing bound)");
	for (i = 0; i < r->nthreads; i++) {
		pu = pu_of(r, i);
		p->ran_on[i] = -1;
		fprintf(r->info, "%s thread %u cpu %d node %d package %d",
			i ? "," : "", i, pu ? (int)pu->os_index : -1,
			node_of(p, pu), pkg_of(p, pu));
	}
	fprintf(r->info, "\n");
	fflush(r->info);
	return 0;
}

/* In worker i, before the start gate: bind it and its memory. */
int placement_thread(struct worker *w, char *err, size_t len)
{
	struct rl_run *r = w->run;
	struct placement *p = r->place;
	hwloc_nodeset_t ns;
	hwloc_obj_t pu;
	unsigned int i;
	int ret = 0;

	if (!p || p->policy == POL_PIN || !p->bound)
		goto out;
	pu = pu_of(r, w->id);
	if (hwloc_set_cpubind(p->topo, pu->cpuset, HWLOC_CPUBIND_THREAD))
		return snprintf(err, len, "placement: thread %u: binding to CPU %u: %s",
				w->id, pu->os_index, strerror(errno)), -1;
	if (!strcmp(p->membind, "none"))
		goto out;
	ns = hwloc_bitmap_alloc();
	if (!ns)
		return snprintf(err, len, "placement: out of memory"), -1;
	if (!strcmp(p->membind, "local")) {
		hwloc_cpuset_to_nodeset(p->topo, pu->cpuset, ns);
	} else {
		for (i = 0; i < r->nthreads; i++) {
			hwloc_bitmap_t one = hwloc_bitmap_alloc();

			hwloc_cpuset_to_nodeset(p->topo, pu_of(r, i)->cpuset, one);
			hwloc_bitmap_or(ns, ns, one);
			hwloc_bitmap_free(one);
		}
	}
	if (hwloc_set_membind(p->topo, ns, strcmp(p->membind, "local") ?
			      HWLOC_MEMBIND_INTERLEAVE : HWLOC_MEMBIND_BIND,
			      HWLOC_MEMBIND_THREAD | HWLOC_MEMBIND_BYNODESET)) {
		snprintf(err, len, "placement: thread %u: --membind %s: %s",
			 w->id, p->membind, strerror(errno));
		ret = -1;
	}
	hwloc_bitmap_free(ns);
out:
	if (p && p->ran_on && p->bound)
		p->ran_on[w->id] = sched_getcpu();
	return ret;
}

/* --placement and --membind change what a point measures: in params, when given */
void placement_params(const struct rl_run *r, struct json_t *params)
{
	if (r->o.placement)
		json_object_set_new(params, "placement",
				    json_string(r->o.placement));
	if (r->o.membind)
		json_object_set_new(params, "membind",
				    json_string(r->o.membind));
}

void placement_env(const struct rl_run *r, struct json_t *env)
{
	const struct placement *p = r->place;
	json_t *threads, *rec;
	hwloc_obj_t pu;
	unsigned int i;

	if (!p)
		return;
	threads = json_array();
	for (i = 0; i < p->nthreads; i++) {
		pu = pu_of(r, i);
		json_array_append_new(threads, json_pack("{s:i, s:i, s:i, s:i, s:o}",
			"thread", i, "cpu", pu ? (int)pu->os_index : -1,
			"node", node_of(p, pu), "package", pkg_of(p, pu),
			"ran_on", p->ran_on && p->ran_on[i] >= 0 ?
				json_integer(p->ran_on[i]) : json_null()));
	}
	rec = json_pack("{s:s, s:s, s:b, s:i, s:i, s:i, s:o}",
			"policy", policy_names[p->policy],
			"membind", p->membind, "bound", p->bound,
			"packages", hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_PACKAGE),
			"nodes", hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_NUMANODE),
			"cpus", hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_PU),
			"threads", threads);
	json_object_set_new(env, "placement", rec);
}

/*
 * hwloc's static library calls libudev, which Debian ships only as a
 * shared library. Without udev hwloc names OS devices from sysfs alone,
 * which placement never looks at: udev_new() failing is the documented
 * way to tell it there is no udev.
 */
struct udev;
struct udev_device;
struct udev *udev_new(void);
struct udev *udev_unref(struct udev *u);
struct udev_device *udev_device_new_from_subsystem_sysname(struct udev *u,
		const char *subsystem, const char *sysname);
struct udev_device *udev_device_unref(struct udev_device *d);
const char *udev_device_get_property_value(struct udev_device *d,
					   const char *key);

struct udev *udev_new(void)
{
	return NULL;
}

struct udev *udev_unref(struct udev *u)
{
	(void)u;
	return NULL;
}

struct udev_device *udev_device_new_from_subsystem_sysname(struct udev *u,
		const char *subsystem, const char *sysname)
{
	(void)u;
	(void)subsystem;
	(void)sysname;
	return NULL;
}

struct udev_device *udev_device_unref(struct udev_device *d)
{
	(void)d;
	return NULL;
}

const char *udev_device_get_property_value(struct udev_device *d,
					   const char *key)
{
	(void)d;
	(void)key;
	return NULL;
}
