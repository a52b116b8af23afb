/*
 * Counts the SIGINT, SIGTERM and SIGHUP it receives: writes READY once its handlers are in
 * place, waits for the first signal, then AFTER seconds more (so a duplicate has time to come),
 * and writes "INT TERM HUP" counts to OUT. Exits 0.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t counts[3];

static void on_signal(int sig)
{
	counts[sig == SIGINT ? 0 : sig == SIGTERM ? 1 : 2]++;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_signal};
	struct timespec rest;
	double after;
	FILE *f;

	if (argc < 4) {
		fprintf(stderr, "usage: sigcount READY OUT AFTER\n");
		return 2;
	}
	after = atof(argv[3]);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	f = fopen(argv[1], "w");
	if (!f || fclose(f))
		return 1;
	while (!counts[0] && !counts[1] && !counts[2])
		pause();
	rest.tv_sec = (time_t)after;
	rest.tv_nsec = (long)((after - rest.tv_sec) * 1e9);
	while (nanosleep(&rest, &rest))
		;
	f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fprintf(f, "%d %d %d\n", counts[0], counts[1], counts[2]);
	return fclose(f) ? 1 : 0;
}
