/*
 * watch.h: tf-watch's parts (README.md here). tf-watch is the detector
 * outside the process (docs/design.md .wd.outside): it sees the death the
 * process cannot report, the OOM killer, and a process that stops answering.
 */
#ifndef TF_WATCH_H
#define TF_WATCH_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

enum { ON_HANG_REPORT, ON_HANG_KILL, ON_HANG_ABORT };

typedef struct watch {
    /* options */
    uint64_t hang_ns;        /* --hang; 0: not watched */
    int on_hang;
    const char *log;         /* --log FILE */
    FILE *logf;
    /* the process */
    pid_t pid;
    int child;               /* started by tf-watch (else --pid) */
    char program[512];       /* as given, or /proc/PID/exe for --pid */
    char record_dir[2 * PATH_MAX]; /* where its recording is (TF_RECORD, or tf-record-PID) */
    int records;             /* its environment asks for the factory record */
    char self_dir[PATH_MAX]; /* tf-watch's own directory, to find tf-dump */
} watch;

/* ---- oom.c: was it the kernel's OOM killer? -------------------------------------- */
/* Notes the OOM-kill counts of pid's memory cgroups (v1 and v2) and the
 * kernel's; call at start and on every tick (a process may change cgroups). */
void oom_watch(pid_t pid);
/* After a death by SIGKILL: 1 and the evidence in why, if the OOM killer's
 * count rose while it ran in its cgroup (or in the whole kernel). */
int oom_killed(char *why, size_t len);

/* ---- hang.c: the heartbeat over the control socket --------------------------------- */
typedef struct heartbeat {
    uint64_t started, answered, moved; /* ns, CLOCK_MONOTONIC */
    unsigned long long calls, open;
    int ever;          /* it answered once */
    int watched;       /* it runs a watchdog, so calls are counted */
    int hung;          /* a hang was reported and has not ended */
    int silent;        /* ... because it did not answer */
    char why[256];     /* why not answering, as the last attempt said */
} heartbeat;
/* One heartbeat; returns 1 when a hang begins (its description in what). */
int hang_check(watch *w, heartbeat *h, uint64_t now, char *what, size_t len);
/* Asks the process for a snapshot into RECORD_DIR.hang-N: 1 and the
 * directory in dir if it wrote one; where says so, or why not. */
int hang_snapshot(watch *w, const heartbeat *h, char *dir, size_t dlen, char *where, size_t len);

/* ---- verdict.c: what tf-watch says ------------------------------------------------ */
uint64_t now_ns(void);
/* "tf-watch: " + the text, with the program's name escaped. */
void say(const watch *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The program as it is named in lines: "./app (pid 4242)". */
void put_program(FILE *out, const watch *w);
/* Checks the recording in dir with tf-dump and says what it finds: 1
 * readable, 0 damaged or absent (said only if the process records). */
int check_recording(const watch *w, const char *dir);
/* One JSON object per verdict in --log. status, signal: -1, 0 for none;
 * trace: the directory checked (readable: what check_recording said), or
 * NULL when none was. */
void log_verdict(watch *w, const char *verdict, int status, int signal, int oom,
                 const char *detail, const char *trace, int readable);
/* "1.25 s", "350.0 ms": the watchdog's way of writing a duration. */
void format_duration(char *out, size_t len, uint64_t ns);
const char *signal_name(int sig);

#endif
