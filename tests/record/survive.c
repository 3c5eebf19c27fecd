/* survive.c: the recorder on the bad days (run-survive.sh). argv[1]:
 *   spin            hot calls until killed; "ready" on stdout once recording
 *   known HOW       known(7), then HOW: kill (raise(SIGKILL)), _exit, exec
 *   term [handler]  calls until SIGTERM; with its own handler it then calls
 *                   known(7) and returns from main
 *   churn N CALLS PAR   N short-lived threads, PAR at a time, CALLS calls each;
 *                   prints its VmHWM in KiB
 *   rare CALLS      one info point and one exception (a longjmp out of a
 *                   monitored function), then CALLS hot calls
 *   prof            hot calls under a SIGPROF handler that makes calls too
 *   segv            some calls, then a write to NULL
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <tf/tf.h>

TF_GROUP(sv);

static volatile long sink;
static volatile sig_atomic_t stop;

TF_MONITOR(sv) long hot(long i) { return sink += i; }

TF_MONITOR(sv) long known(long x) { return 2 * x; }

TF_INFO(TF_TP_NONE) static void note(const char *what, long v) {}

TF_MONITOR(sv) void rare(long v) { note("rare", v); }

static jmp_buf back;

TF_MONITOR(sv) void jumper(long v) { longjmp(back, (int)v); }

TF_MONITOR(sv) long in_handler(long s) { return s + 1; }

static void spin(void)
{
    for (long i = 0;; i++) {
        hot(i);
        if (i == 100000) {
            puts("ready");
            fflush(stdout);
        }
    }
}

static void known_then(const char *how)
{
    known(7);
    if (!strcmp(how, "kill"))
        raise(SIGKILL);
    else if (!strcmp(how, "_exit"))
        _exit(3);
    else if (!strcmp(how, "exec"))
        execl("/bin/true", "true", (char *)NULL);
    exit(1);
}

static void on_term(int sig)
{
    stop = sig;
}

static int term(int own)
{
    if (own)
        signal(SIGTERM, on_term);
    hot(1); /* ready once the thread records */
    puts("ready");
    fflush(stdout);
    while (!stop) {
        hot(1);
        usleep(1000);
    }
    known(7);
    return 0;
}

struct churn {
    long calls;
};

static void *churn_thread(void *arg)
{
    const struct churn *c = arg;
    for (long i = 0; i < c->calls; i++)
        hot(i);
    return NULL;
}

static long vm_hwm_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

static int churn(long n, long calls, int par)
{
    struct churn c = {calls};
    pthread_t *t = calloc((size_t)par, sizeof *t);
    for (long done = 0; done < n; done += par) {
        int k = (int)(n - done < par ? n - done : par);
        for (int i = 0; i < k; i++)
            if (pthread_create(&t[i], NULL, churn_thread, &c) != 0)
                return perror("pthread_create"), 1;
        for (int i = 0; i < k; i++)
            pthread_join(t[i], NULL);
    }
    free(t);
    printf("%ld\n", vm_hwm_kib());
    return 0;
}

static void on_prof(int sig)
{
    in_handler(sig);
}

static int prof(void)
{
    signal(SIGPROF, on_prof);
    struct itimerval it = {{0, 200}, {0, 200}};
    setitimer(ITIMER_PROF, &it, NULL);
    for (long i = 0; i < 20000000; i++)
        hot(i);
    it = (struct itimerval){{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &it, NULL);
    return 0;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "spin";
    if (!strcmp(what, "spin"))
        spin();
    if (!strcmp(what, "known") && argc > 2)
        known_then(argv[2]);
    if (!strcmp(what, "term"))
        return term(argc > 2);
    if (!strcmp(what, "churn") && argc > 4)
        return churn(atol(argv[2]), atol(argv[3]), atoi(argv[4]));
    if (!strcmp(what, "rare") && argc > 2) {
        rare(42);
        if (!setjmp(back))
            jumper(1);
        for (long i = 0, n = atol(argv[2]); i < n; i++)
            hot(i);
        return 0;
    }
    if (!strcmp(what, "prof"))
        return prof();
    if (!strcmp(what, "segv")) {
        for (long i = 0; i < 1000; i++)
            hot(i);
        known(7);
        *(volatile int *)(long)(sink * 0) = 1;
    }
    fprintf(stderr, "survive: unknown mode %s\n", what);
    return 2;
}
