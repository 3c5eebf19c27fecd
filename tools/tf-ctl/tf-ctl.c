/*
 * tf-ctl: switch tracing of a running program that serves a control socket
 * (TF_CONTROL=1; DESIGN.md section 10). It sends one request line and prints
 * the answer; the program does all the work, so tf-ctl links nothing of TF.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"

#define ANSWER_WAIT_MS 10000

static const char help[] =
    "usage: tf-ctl list\n"
    "       tf-ctl PID COMMAND [ARGUMENTS...]\n"
    "\n"
    "Drives a program started with TF_CONTROL=1. Commands:\n"
    "  status                          pid, program, socket, counts\n"
    "  groups                          every group, its factory and subgroups\n"
    "  functions [GLOB]                monitored functions <tu>.<name>, group, on/off\n"
    "  register GROUP=FACTORY[+FACTORY...] [if CONDITION]\n"
    "  clear GROUP\n"
    "  snapshot [DIR]                  write the flight recorder now\n"
    "  report [FILE]                   the timing report (to FILE, or printed)\n"
    "  trigger 'FUNCTION:EVENT [if CONDITION] -> ACTION [ARG] [once|every DURATION]'\n"
    "  triggers                        the triggers, numbered, with fire counts\n"
    "  untrigger N\n"
    "  stacks                          every thread's open monitored calls now (a watchdog runs)\n"
    "  watchdog DURATION[,ACTION...]|off  start, change or stop the watchdog (TF_WATCHDOG)\n"
    "  heartbeat                       the watchdog, calls entered and left so far, open now\n"
    "  budget [PERCENT|off]            the overhead budget (TF_BUDGET): what it switched off; set, stop\n"
    "CONDITION: time|depth|ARGUMENT OP VALUE [and ...], OP one of == != < <= > >=\n"
    "  e.g. 'if time > 10ms', 'if depth <= 2 and fd == 3', 'if path == \"/etc\"'\n"
    "EVENT: enter, exit, throw. ACTION: register GROUP=..., clear GROUP, snapshot, report\n"
    "See README.md, 'Turning tracing on'.\n";

static int list(void)
{
    char dir[256];
    tf_ctl_socket_dir(dir, sizeof dir);
    DIR *d = opendir(dir);
    if (!d)
        return 0; /* nothing serves: an empty list */
    for (struct dirent *e; (e = readdir(d));) {
        char *end, exe[512] = "?", link[64];
        long pid = strtol(e->d_name, &end, 10);
        if (pid <= 0 || strcmp(end, ".sock") != 0 || kill((pid_t)pid, 0) != 0)
            continue;
        snprintf(link, sizeof link, "/proc/%ld/exe", pid);
        ssize_t n = readlink(link, exe, sizeof exe - 1);
        if (n > 0)
            exe[n] = 0;
        printf("%ld\t%s\n", pid, exe);
    }
    closedir(d);
    return 0;
}

/* The request: the words joined by blanks, one line. */
static char *request(int argc, char **argv)
{
    size_t len = 2;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    char *line = malloc(len);
    if (!line)
        return NULL;
    line[0] = 0;
    for (int i = 0; i < argc; i++) {
        if (strpbrk(argv[i], "\r\n")) {
            fprintf(stderr, "tf-ctl: argument %d contains a line break\n", i + 2);
            free(line);
            return NULL;
        }
        strcat(strcat(line, i ? " " : ""), argv[i]);
    }
    return strcat(line, "\n");
}

static int command(const char *pid, int argc, char **argv)
{
    char *line = request(argc, argv), why[512];
    if (!line)
        return 2;
    char *answer = tf_ctl_ask(pid, line, ANSWER_WAIT_MS, why, sizeof why);
    free(line);
    if (!answer) {
        fprintf(stderr, "tf-ctl: %s\n", why);
        return 1;
    }
    int ok = strncmp(answer, "ok\n", 3) == 0;
    if (ok)
        fputs(answer + 3, stdout);
    else
        fprintf(stderr, "tf-ctl: process %s: %s", pid, answer);
    free(answer);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(help, stdout);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "list") == 0)
        return list();
    char *end;
    if (argc >= 3 && strtol(argv[1], &end, 10) > 0 && !*end)
        return command(argv[1], argc - 2, argv + 2);
    fputs(help, stderr);
    return 2;
}
