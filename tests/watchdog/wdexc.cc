// wdexc: a C++ exception unwinds through monitored calls before a stall: the
// watchdog's report holds only the calls still open (tests/watchdog, hard).
#include <stdexcept>
#include <unistd.h>

#include <tf/tf.h>

TF_GROUP(app);

TF_MONITOR(app) void thrower(int depth)
{
    if (depth == 0)
        throw std::runtime_error("deep");
    thrower(depth - 1);
}

TF_MONITOR(app) void nap(int seconds)
{
    sleep(seconds);
}

TF_MONITOR(app) int catcher(int seconds)
{
    try {
        thrower(3);
    } catch (const std::exception &) {
    }
    nap(seconds);
    return 0;
}

int main()
{
    return catcher(1);
}
