/*
 * test_capture.c: captured values as libtf shows them (runtime/capture.c,
 * docs/design.md .cap.read), with tf_capture trees built by hand as the
 * plugins emit them: nested structs, lengths from an argument and from a
 * hidden sibling field, cuts, strings running into unreadable memory,
 * NULL and unmapped pointers; and the pointer itself when a length has no
 * arguments to come from.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include <tf/monitors.h>

struct peer {
    const char *name;
    int port;
};
struct conn {
    int fd;
    struct peer *peer;
    unsigned n;
    short vals[4];
};

static const tf_capture peer_fields[] = {
    {"name", TF_K_STR, sizeof(char *), offsetof(struct peer, name), 0, NULL, NULL, 0, -1, 0, 0},
    {"port", TF_K_INT, sizeof(int), offsetof(struct peer, port), 0, NULL, NULL, 0, -1, 0, 0},
};
static const tf_capture conn_fields[] = {
    {"fd", TF_K_INT, sizeof(int), offsetof(struct conn, fd), 0, NULL, NULL, 0, -1, 0, 0},
    {"peer", TF_K_PTR, sizeof(void *), offsetof(struct conn, peer), TF_CAP_FOLLOW, NULL, peer_fields, 2, -1, 0, 0},
    {"n", TF_K_UINT, sizeof(unsigned), offsetof(struct conn, n), TF_CAP_HIDDEN, NULL, NULL, 0, -1, 0, 0},
    /* vals[n], at most 3 */
    {"vals", TF_K_INT, sizeof(short), offsetof(struct conn, vals), TF_CAP_ARRAY | TF_CAP_LEN_FIELD, NULL, NULL, 0, 2,
     0, 3},
};
static const tf_capture conn_root = {"c", TF_K_PTR, sizeof(void *), 0, TF_CAP_FOLLOW, NULL, conn_fields, 4, -1, 0, 0};
/* buf[len] max 4: the length is argument 1 */
static const tf_capture buf_root = {"buf", TF_K_UINT, 1, 0, TF_CAP_FOLLOW | TF_CAP_ARRAY | TF_CAP_TEXT | TF_CAP_LEN_ARG,
                                    NULL, NULL, 0, 1, 0, 4};

static char text[128];

static const char *args_text(const tf_value *v, size_t n)
{
    tf_args a = {(uint32_t)n, 0, v};
    tf_args_format(text, sizeof text, &a);
    return text;
}

static tf_value captured(const char *name, const void *p, const tf_capture *root)
{
    return (tf_value){name, TF_K_PTR, sizeof(void *), {.p = p}, root};
}

static void nested_structs_and_arrays(void **state)
{
    struct peer db = {"db1", 5432};
    struct conn c = {3, &db, 2, {7, -8, 9, 10}};
    tf_value v = captured("c", &c, &conn_root);
    assert_string_equal(args_text(&v, 1), "c={fd=3, peer={name=\"db1\", port=5432}, vals={7, -8}}");
    c.n = 9; /* more than the limit (3): cut */
    assert_string_equal(args_text(&v, 1), "c={fd=3, peer={name=\"db1\", port=5432}, vals={7, -8, 9, ...}}");
    c.peer = NULL;
    assert_string_equal(args_text(&v, 1), "c={fd=3, peer=<unreadable>, vals={7, -8, 9, ...}}");
}

static void unreadable_roots(void **state)
{
    tf_value v = captured("c", NULL, &conn_root);
    assert_string_equal(args_text(&v, 1), "c=<unreadable>");
    long page = sysconf(_SC_PAGESIZE);
    void *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    munmap(p, (size_t)page);
    v = captured("c", p, &conn_root);
    assert_string_equal(args_text(&v, 1), "c=<unreadable>");
}

static void lengths_from_arguments(void **state)
{
    tf_value v[2] = {captured("buf", "hello\tworld", &buf_root), {"len", TF_K_UINT, 8, {.u = 3}, NULL}};
    assert_string_equal(args_text(v, 2), "buf=\"hel\", len=3");
    v[1].v.u = 11; /* cut at max 4 bytes */
    assert_string_equal(args_text(v, 2), "buf=\"hell\"..., len=11");
    /* alone (a result has no arguments), the pointer it is */
    char one[32];
    tf_value_format(one, sizeof one, &v[0]);
    assert_true(strncmp(one, "0x", 2) == 0);
}

static void text_running_into_unmapped_memory(void **state)
{
    long page = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    munmap(p + page, (size_t)page);
    memcpy(p + page - 2, "ab", 2);
    tf_value v[2] = {captured("buf", p + page - 2, &buf_root), {"len", TF_K_UINT, 8, {.u = 4}, NULL}};
    assert_string_equal(args_text(v, 2), "buf=\"ab\"..., len=4");
    munmap(p, (size_t)page);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nested_structs_and_arrays),
        cmocka_unit_test(unreadable_roots),
        cmocka_unit_test(lengths_from_arguments),
        cmocka_unit_test(text_running_into_unmapped_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
