/*
 * forked.c: a parent and its forked child, recorded as TF_RECORD=DIR and
 * DIR.<child's pid>. The parent calls parent_work() before the fork and
 * after the child ended; the child calls child_work(2) and child_work(3).
 * It prints the child's pid.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tf/tf.h>

TF_GROUP(fk);

static volatile int sink;

TF_MONITOR(fk) int parent_work(int n)
{
    return sink += n;
}

TF_MONITOR(fk) int child_work(int n)
{
    return sink += n;
}

int main(void)
{
    parent_work(1);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        child_work(2);
        child_work(3);
        exit(0);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return 1;
    parent_work(4);
    printf("%d\n", (int)pid);
    return 0;
}
