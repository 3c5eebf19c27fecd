/*
 * budapp: the program of tests/budget. One hot tiny function (tiny, called
 * SPIN times per call of spin) and two slow ones (spin and slow, a
 * millisecond or so a call), all of group app:
 *
 *   budapp hot ROUNDS      ROUNDS x (spin(SPIN), slow(SLOW)); prints the sum
 *   budapp wait ROUNDS     the same, but first prints "ready" and waits for a
 *                          line on stdin, and between the halves prints "half"
 *                          and waits again (tf-ctl acts meanwhile)
 *   budapp threads ROUNDS  the rounds on two threads at once (each does all)
 *   budapp fork ROUNDS     half the rounds, then a child does the other half
 *                          and exits; then the parent does them too
 *   budapp dl ROUNDS LIB   twice: dlopen LIB (budlib.c), ROUNDS x
 *                          (lib_spin(SPIN), slow(SLOW)), dlclose
 *   budapp light ROUNDS    ROUNDS x LIGHT calls of mix, a function of a few
 *                          nanoseconds: its hooks are most of the CPU time,
 *                          yet a few times its own, not ten
 *
 * At the end it prints "budget thread: yes" or "no": whether a thread named
 * tf-budget exists (nothing runs without TF_BUDGET).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tf/tf.h>

#define SPIN 200000
#define SLOW 3

TF_GROUP(app);

TF_MONITOR(app) int tiny(int x)
{
    return x * 3 + 1;
}

TF_MONITOR(app) long spin(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += tiny((int)i);
    return s;
}

TF_MONITOR(app) long slow(int n)
{
    volatile long s = 0;
    for (long i = 0; i < n * 100000L; i++)
        s += i;
    return s;
}

#define LIGHT 100000

/* Two dependent multiply-xorshift steps: a few nanoseconds, less than
 * of what a metered call's hooks take. */
TF_MONITOR(app) unsigned mix(unsigned x)
{
    for (int i = 0; i < 2; i++) {
        x = x * 2654435761u + 1;
        x ^= x >> 15;
        __asm__ volatile("" : "+r"(x));
    }
    return x;
}

static int budget_thread(void)
{
    DIR *d = opendir("/proc/self/task");
    int found = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[300], comm[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f && fgets(comm, sizeof comm, f))
            found |= strcmp(comm, "tf-budget\n") == 0;
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return found;
}

static void pause_for(const char *word)
{
    char line[64];
    printf("%s\n", word);
    fflush(stdout);
    if (!fgets(line, sizeof line, stdin))
        exit(3);
}

static long rounds_of(int rounds)
{
    long sum = 0;
    for (int r = 0; r < rounds; r++)
        sum += spin(SPIN) + slow(SLOW);
    return sum;
}

static void *worker(void *arg)
{
    *(long *)arg = rounds_of(*(int *)((long *)arg + 1));
    return NULL;
}

static long on_threads(int rounds)
{
    pthread_t t[2];
    long slots[2][2] = {{0, rounds}, {0, rounds}};
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, slots[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return slots[0][0] + slots[1][0];
}

static long in_child(int rounds)
{
    long sum = rounds_of(rounds / 2);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        printf("child sum %ld\nchild budget thread: %s\n", rounds_of(rounds - rounds / 2),
               budget_thread() ? "yes" : "no");
        exit(0);
    }
    int status = 1;
    waitpid(pid, &status, 0);
    printf("child status %d\n", status);
    return sum + rounds_of(rounds - rounds / 2);
}

static long with_library(int rounds, const char *path)
{
    long sum = 0;
    for (int k = 0; k < 2; k++) {
        void *lib = dlopen(path, RTLD_NOW);
        long (*lib_spin)(long) = lib ? (long (*)(long))dlsym(lib, "lib_spin") : NULL;
        if (!lib_spin) {
            fprintf(stderr, "budapp: %s\n", dlerror());
            exit(4);
        }
        for (int r = 0; r < rounds; r++)
            sum += lib_spin(SPIN) + slow(SLOW);
        dlclose(lib);
    }
    return sum;
}

int main(int argc, char **argv)
{
    const char *mode = argc >= 3 ? argv[1] : "";
    int rounds = argc >= 3 ? atoi(argv[2]) : 0;
    long sum = 0;
    if (strcmp(mode, "hot") == 0 || strcmp(mode, "wait") == 0) {
        int waits = strcmp(mode, "wait") == 0;
        if (waits)
            pause_for("ready");
        for (int r = 0; r < rounds; r++) {
            if (waits && r == rounds / 2)
                pause_for("half");
            sum += spin(SPIN) + slow(SLOW);
        }
    } else if (strcmp(mode, "threads") == 0) {
        sum = on_threads(rounds);
    } else if (strcmp(mode, "fork") == 0) {
        sum = in_child(rounds);
    } else if (strcmp(mode, "light") == 0) {
        unsigned x = 1;
        for (int r = 0; r < rounds; r++)
            for (int i = 0; i < LIGHT; i++)
                x = mix(x + (unsigned)i);
        sum = x;
    } else if (strcmp(mode, "dl") == 0 && argc == 4) {
        sum = with_library(rounds, argv[3]);
    } else {
        fprintf(stderr, "usage: budapp hot|wait|threads|fork|light ROUNDS | dl ROUNDS LIB\n");
        return 2;
    }
    printf("sum %ld\nbudget thread: %s\n", sum, budget_thread() ? "yes" : "no");
    return 0;
}
