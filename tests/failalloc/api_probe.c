/* api_probe: what a program does with libtf's interface, written to expect
 * any call to fail for want of memory (it checks every result and goes on
 * without what failed). Run by run.sh with each allocation failing in
 * turn: any crash or hang is then libtf's. Prints "done". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tf/monitors.h>
#include <tf/record.h>
#include <tf/timing.h>

#include "../unit/fake_tu.h"

static void traced_calls(void)
{
    for (int i = 0; i < 3; i++) {
        read_int(i);
        write_long(i);
    }
}

static int count_tu(const tf_tu *tu, void *arg)
{
    ++*(int *)arg;
    return 0;
}

int main(int argc, char **argv)
{
    FILE *null = fopen("/dev/null", "w");
    char buf[256];
    int n = 0;
    tf_tu_register(&iostream_tu);
    tf_factory *d = null ? tf_dprint(null) : NULL;
    if (d)
        tf_register("io", d);
    traced_calls();
    tf_factory *t = tf_operation_tracer();
    tf_factory *parts[3] = {d, t, tf_noop()};
    tf_factory *c = d && t ? tf_compose(parts, 3) : NULL;
    if (c)
        tf_register("io_read", c);
    traced_calls();
    tf_operation_context(buf, sizeof buf);
    tf_timing_manager *m = tf_timing_manager_create();
    if (m) {
        tf_factory *tf = tf_timing(m);
        if (tf)
            tf_register("io_write", tf);
        traced_calls();
        if (null)
            tf_timing_report(m, null, TF_TIMING_JSON);
        tf_timing_timer_enable(m, "iostream.read_int", 0);
        tf_register("io_write", tf_noop());
    }
    if (tf_select("-iostream.write_long,nosuch*") >= 0)
        traced_calls();
    tf_select_reset();
    tf_factory *r = tf_record();
    if (r && tf_register("io", r) == TF_OK) {
        traced_calls();
        tf_record_snapshot(argc > 1 ? argv[1] : NULL);
    }
    tf_tu_foreach(count_tu, &n);
    tf_group_known("io");
    tf_clear("io_read");
    tf_clear_all();
    tf_tu_unregister(&iostream_tu);
    printf("done\n");
    return 0;
}
