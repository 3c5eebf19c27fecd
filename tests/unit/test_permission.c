/* Permission: a dlopen'ed module cannot register, trust itself or seal until
 * the program trusts it; seals hold; denials are recorded. One sequence,
 * since seals are permanent. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>
#include <tf/monitors.h>
#include <tf/registry.h>

typedef int (*fn)(void);

static void *open_module(const char *path, fn *reg, fn *trust, fn *seal)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(h);
    *reg = (fn)dlsym(h, "module_register");
    *trust = (fn)dlsym(h, "module_trust_itself");
    *seal = (fn)dlsym(h, "module_seal");
    assert_non_null(*reg);
    return h;
}

static void policy(void **state)
{
    fn reg, trust, seal, reg2, trust2, seal2;
    unsigned long base = tf_denials(NULL, 0);
    open_module(PERM_MODULE, &reg, &trust, &seal);
    open_module(PERM_MODULE2, &reg2, &trust2, &seal2);

    /* untrusted: denied, recorded, nothing changed */
    assert_int_equal(reg(), TF_EPERM);
    assert_null(tf_registered_factory("io"));
    assert_int_equal(trust(), TF_EPERM);
    assert_int_equal(seal(), TF_EPERM);
    tf_denial d[4];
    assert_int_equal(tf_denials(d, 4), base + 3);
    assert_string_equal(d[0].what, "seal");
    assert_string_equal(d[2].what, "register io");
    assert_non_null(strstr(d[2].module, "perm_module"));
    assert_int_equal(d[2].reason, TF_EPERM);

    /* the program (trusted from start-up) trusts one module */
    assert_int_equal(tf_register("io", tf_noop()), TF_OK);
    assert_int_equal((tf_register)("io", tf_noop()), TF_OK); /* the function, not the macro */
    tf_clear("io");
    assert_int_equal(tf_trust_module((const void *)reg), TF_OK);
    assert_int_equal(reg(), TF_OK);
    assert_ptr_equal(tf_registered_factory("io"), tf_noop());
    assert_int_equal(reg2(), TF_EPERM); /* the other is still untrusted */

    /* sealing trust: no more modules, not even by the program */
    assert_int_equal(tf_seal(TF_SEAL_TRUST), TF_OK);
    assert_int_equal(tf_trust_module((const void *)reg2), TF_EPERM);
    assert_int_equal(reg2(), TF_EPERM);
    assert_int_equal(reg(), TF_OK); /* trusted before the seal: still */
    assert_int_equal(tf_seal(0), TF_EINVAL);
    assert_int_equal(tf_seal(64), TF_EINVAL);

    /* sealing registrations: nobody registers; clearing is still allowed */
    assert_int_equal(tf_seal(TF_SEAL_REGISTRATIONS), TF_OK);
    assert_int_equal(tf_register("io", tf_noop()), TF_EPERM);
    assert_int_equal(reg(), TF_EPERM);
    assert_int_equal(tf_clear("io"), TF_OK);
    assert_null(tf_registered_factory("io"));
    assert_true(tf_denials(NULL, 0) > base + 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(policy)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
