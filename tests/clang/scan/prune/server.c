/* server.c and util.c: tf-scan's static pruning (scan.sh). Of the four calls
 * of write, handle_request reaches two: through reply and flush_log. */
#include <unistd.h>
int flush_log(const char *m);
static int reply(int fd, const char *m) { return (int)write(fd, m, 1); }
int handle_request(int fd)
{
    reply(fd, "x");
    return flush_log("d");
}
int housekeeping(void) { return (int)write(2, "h", 1); }
int main(void)
{
    handle_request(1);
    return housekeeping() == 1 ? 0 : 1;
}
