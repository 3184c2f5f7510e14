// SPDX-License-Identifier: GPL-2.0
/*
 * Signals: no file rlwork created outlives the process, whatever signal
 * ends it (SIGKILL aside).  Every signal whose default action terminates
 * the process (signal(7): Term and Core) is caught; the handler removes
 * the files registered here and dies of the same signal with its default
 * action, so the parent sees the usual status (a core dump included).
 * Catching a list of "the usual" signals was not enough: a pipe closed
 * under rlwork's stdout (SIGPIPE), `ulimit -f` (SIGXFSZ) or a stray
 * SIGUSR1 each left a 16 MiB target behind.
 *
 * During a run, SIGINT, SIGTERM and SIGHUP stop it instead (rl_signals_run):
 * the threads stop, the result says "interrupted by a signal" and the
 * normal clean-up runs. A second one, or one the run cannot honour in
 * time, takes the path above.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rlwork.h"

volatile sig_atomic_t rl_interrupted;

/* signal(7)'s Term and Core signals, less SIGKILL; real-time ones below */
static const int fatal[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE,
	SIGUSR1, SIGSEGV, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGSTKFLT,
	SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSYS,
};

/* a file to remove: its name, and the inode the name must still lead to */
static struct {
	volatile sig_atomic_t armed;
	dev_t dev;
	ino_t ino;
	char path[PATH_MAX];
} doomed[RL_DOOMED_SLOTS];

/* sigaddset for every signal rl_signals_init() catches */
static void fatal_set(sigset_t *set)
{
	unsigned int i;
	int s;

	sigemptyset(set);
	for (i = 0; i < ARRAY_SIZE(fatal); i++)
		sigaddset(set, fatal[i]);
	for (s = SIGRTMIN; s <= SIGRTMAX; s++)
		sigaddset(set, s);
}

/* async-signal-safe: lstat, unlink; never a file that replaced ours */
static void remove_doomed(void)
{
	struct stat st;
	unsigned int i;

	for (i = 0; i < RL_DOOMED_SLOTS; i++)
		if (doomed[i].armed && !lstat(doomed[i].path, &st) &&
		    st.st_dev == doomed[i].dev && st.st_ino == doomed[i].ino)
			unlink(doomed[i].path);
}

void rl_fatal_signal(int sig)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	int e = errno;

	remove_doomed();
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	/*
	 * Pending while this handler runs (sig is blocked in it unless
	 * SA_NODEFER), delivered with the default action on return; a fault
	 * (SIGSEGV, SIGBUS) comes back at the same instruction the same way.
	 */
	raise(sig);
	errno = e;
}

static void on_stop(int sig)
{
	if (rl_interrupted)	/* the second one: do not wait any more */
		rl_fatal_signal(sig);
	rl_interrupted = 1;
}

static void install(int sig, void (*fn)(int))
{
	struct sigaction sa = { .sa_handler = fn }, old;

	/*
	 * What the parent ignores stays ignored (nohup's SIGHUP, an ignored
	 * SIGPIPE: those never kill us), except SIGINT and SIGQUIT: a shell
	 * without job control ignores them in every background command, and
	 * there they are still meant to stop rlwork.
	 */
	if (!sigaction(sig, NULL, &old) && old.sa_handler == SIG_IGN &&
	    sig != SIGINT && sig != SIGQUIT)
		return;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

void rl_signals_init(void)
{
	unsigned int i;
	int s;

	for (i = 0; i < ARRAY_SIZE(fatal); i++)
		install(fatal[i], rl_fatal_signal);
	for (s = SIGRTMIN; s <= SIGRTMAX; s++)
		install(s, rl_fatal_signal);
}

void rl_signals_run(void)
{
	install(SIGINT, on_stop);
	install(SIGTERM, on_stop);
	install(SIGHUP, on_stop);
}

void rl_signals_block(sigset_t *old)
{
	sigset_t set;

	fatal_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

void rl_signals_restore(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

int rl_doomed_set(enum rl_doomed slot, const char *path, int fd)
{
	struct stat st;

	doomed[slot].armed = 0;
	if (fstat(fd, &st) || strlen(path) >= sizeof(doomed[slot].path))
		return -1;
	strcpy(doomed[slot].path, path);
	doomed[slot].dev = st.st_dev;
	doomed[slot].ino = st.st_ino;
	/* a handler that sees armed sees the path too */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	doomed[slot].armed = 1;
	return 0;
}

void rl_doomed_clear(enum rl_doomed slot)
{
	doomed[slot].armed = 0;
}
